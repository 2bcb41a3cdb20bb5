/** Reading what the SMTP receiver (receivers.ts) got. */
import XLSX from 'xlsx';

/** The headers (unfolded), the text body and the attachments of a raw MIME message from nodemailer. */
export function parseMail(raw: string) {
  const [head] = raw.split(/\r?\n\r?\n/);
  const headers = head!.replace(/\r?\n[ \t]+/g, ' ');
  const subject = /^Subject: (.*)$/m.exec(headers)?.[1] ?? '';
  const boundary = /boundary="?([^";\r\n]+)"?/.exec(headers)?.[1];
  const parts = boundary ? raw.split(`--${boundary}`).slice(1, -1) : [];
  let text = '';
  const attachments: { name: string; data: Buffer }[] = [];
  for (const part of parts) {
    const cut = part.search(/\r?\n\r?\n/);
    const ph = part.slice(0, cut).replace(/\r?\n[ \t]+/g, ' ');
    const body = part.slice(cut).trim();
    const name = /filename="?([^";\r\n]+)"?/.exec(ph)?.[1];
    if (name) attachments.push({ name, data: Buffer.from(body.replace(/\s+/g, ''), 'base64') });
    else if (/text\/plain/.test(ph))
      text = /quoted-printable/i.test(ph)
        ? body
            .replace(/=\r?\n/g, '')
            .replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)))
        : body;
  }
  return { subject, text, attachments };
}

/** The data rows of an XLSX attachment's Report sheet (below the header, without the totals row and the note under it). */
export function xlsxRows(data: Buffer): unknown[][] {
  const ws = XLSX.read(data, { type: 'buffer' }).Sheets.Report!;
  const rows = XLSX.utils.sheet_to_json(ws, { header: 1, blankrows: false }) as unknown[][];
  return rows.slice(1).filter((r) => r[0] !== 'Total' && r[0] !== 'Not in the total');
}
