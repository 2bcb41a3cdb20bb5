/**
 * `fleetsync send-report --month YYYY-MM`: e-mails the month-end pack of that month (mileage, fuel
 * and tolls as XLSX) to FLEETSYNC_REPORT_TO now, whether or not the schedule sent it before, and
 * records it. A month that is not complete is sent marked partial, with the reason.
 */
import { loadConfig } from '../config.ts';
import { FleetsyncError } from '../errors.ts';
import { createLogger } from '../log.ts';
import { secretsOf } from '../config.ts';
import { packConfig, parseMonth, sendMonthPack } from '../reports/pack.ts';
import { resolveAccount } from '../store/accounts.ts';
import { openDatabase } from '../store/db.ts';
import type { Command } from './command.ts';

const usage = 'fleetsync send-report --month YYYY-MM   (FLEETSYNC_SMTP_URL, FLEETSYNC_REPORT_TO)';

export const sendReportCommand: Command = {
  summary: 'E-mails the month-end pack (mileage, fuel, tolls as XLSX) of a month now, again if need be.',
  usage,
  options: { month: { type: 'string' } },
  async run({ values, positionals }, ctx) {
    if (positionals.length)
      throw new FleetsyncError(
        'E_USAGE',
        `unexpected argument ${JSON.stringify(positionals[0])}\nusage: ${usage}`,
      );
    if (values.month === undefined)
      throw new FleetsyncError('E_USAGE', `--month is required\nusage: ${usage}`);
    const month = parseMonth(values.month);
    const loaded = loadConfig(ctx.env);
    packConfig(loaded); // refuse before opening the database
    const log = createLogger({
      now: ctx.now,
      level: loaded.logLevel,
      format: loaded.logFormat,
      secrets: secretsOf(loaded),
      write: (line) => ctx.stderr(line + '\n'),
    });
    const db = await openDatabase(loaded.dbPath, { mustExist: true });
    try {
      const con = await db.connect();
      let account: string;
      try {
        account = await resolveAccount(con, loaded, { mustExist: true });
      } finally {
        con.closeSync();
      }
      const now = ctx.now;
      const res = await sendMonthPack({ db, config: { ...loaded, account }, log, now }, month, 'cli');
      ctx.stdout(
        `sent the ${month} pack of ${account} to ${loaded.reportTo.join(', ')}: ${res.attachments.join(', ')}` +
          `${res.partial ? ` — PARTIAL: ${res.reason}` : ''} (message ${res.messageId})\n`,
      );
    } finally {
      db.close();
    }
  },
};
