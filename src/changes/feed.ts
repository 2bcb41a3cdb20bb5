/**
 * Fetching and parsing the release-notes records (`records.json`, spec Versioning §2–3) with a
 * conditional request: the stored ETag goes out as `If-None-Match`, the stored Last-Modified as
 * `If-Modified-Since`; a 304 means nothing changed. Parsing is tolerant: a bare array or an
 * object with `records`; a record that does not fit is skipped and counted, never fatal; a
 * missing or unknown `kind` is derived from the section (§4).
 */
import { request, type Dispatcher } from 'undici';
import { z } from 'zod';
import { FleetsyncError } from '../errors.ts';

export const KINDS = ['feature', 'improvement', 'fix', 'deprecation', 'breaking', 'other'] as const;
export type ChangeKind = (typeof KINDS)[number];

export interface ChangeRecord {
  version: string;
  date: string;
  kind: ChangeKind;
  section: string | null;
  area: string | null;
  contract: string[];
  endpoints: string[];
  breaking: boolean;
  text: string;
}

const SECTION_KIND: Record<string, ChangeKind> = {
  'new features': 'feature',
  improvements: 'improvement',
  'bug fixes': 'fix',
  'breaking changes': 'breaking',
};

const recordSchema = z.object({
  version: z.string().regex(/^\d+(\.\d+){1,3}$/),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}/),
  kind: z.string().nullish(),
  section: z.string().nullish(),
  area: z.string().nullish(),
  contract: z.array(z.string()).nullish(),
  endpoints: z.array(z.string()).nullish(),
  breaking: z.boolean().nullish(),
  text: z.string().nullish(),
});

export function parseRecords(json: unknown): { records: ChangeRecord[]; skipped: number } {
  const list = Array.isArray(json)
    ? json
    : typeof json === 'object' && json !== null && Array.isArray((json as { records?: unknown }).records)
      ? (json as { records: unknown[] }).records
      : null;
  if (list === null)
    throw new FleetsyncError(
      'E_PAYLOAD',
      'the release-notes file is neither a list of records nor {records: [...]}',
    );
  const records: ChangeRecord[] = [];
  let skipped = 0;
  for (const item of list) {
    const r = recordSchema.safeParse(item);
    if (!r.success) {
      skipped++;
      continue;
    }
    const d = r.data;
    const kind = (KINDS as readonly string[]).includes(d.kind ?? '')
      ? (d.kind as ChangeKind)
      : (SECTION_KIND[(d.section ?? '').toLowerCase()] ?? 'other');
    records.push({
      version: d.version,
      date: d.date.slice(0, 10),
      kind,
      section: d.section ?? null,
      area: d.area ?? null,
      contract: d.contract ?? ['v1'],
      endpoints: d.endpoints ?? [],
      breaking: d.breaking ?? kind === 'breaking',
      text: d.text ?? '',
    });
  }
  return { records, skipped };
}

export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

export type FeedAnswer =
  | { status: 'not_modified' }
  | { status: 'ok'; records: ChangeRecord[]; skipped: number; validators: Validators };

const header = (v: string | string[] | undefined): string | null =>
  typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? null) : null;

/** One conditional GET of `url`. Throws FleetsyncError (E_NETWORK, E_HTTP, E_PAYLOAD) on failure. */
export async function fetchRecords(
  url: string,
  stored: Validators | null,
  opts: { dispatcher?: Dispatcher; timeoutMs?: number } = {},
): Promise<FeedAnswer> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (stored?.etag) headers['if-none-match'] = stored.etag;
  if (stored?.lastModified) headers['if-modified-since'] = stored.lastModified;
  const timeout = opts.timeoutMs ?? 15_000;
  let res: Dispatcher.ResponseData;
  try {
    res = await request(url, {
      method: 'GET',
      headers,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
    });
  } catch (cause) {
    throw new FleetsyncError('E_NETWORK', `cannot reach the release notes at ${url}`, { cause });
  }
  if (res.statusCode === 304) {
    await res.body.dump();
    return { status: 'not_modified' };
  }
  const text = await res.body.text();
  if (res.statusCode !== 200)
    throw new FleetsyncError('E_HTTP', `the release notes at ${url} answered HTTP ${res.statusCode}`, {
      details: { status: res.statusCode },
    });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new FleetsyncError('E_PAYLOAD', `the release notes at ${url} are not JSON`, { cause });
  }
  const { records, skipped } = parseRecords(json);
  return {
    status: 'ok',
    records,
    skipped,
    validators: { etag: header(res.headers.etag), lastModified: header(res.headers['last-modified']) },
  };
}
