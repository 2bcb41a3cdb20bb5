/**
 * Per-account sync options, written the same way in the environment and in the accounts file:
 *
 * - Granted limits (FLEETSYNC_LIMITS, `limits` of an account): `default=2000,POST /fuel/level=20`.
 *   The spec's limits are raised (or lowered) case by case; a bucket is named as the spec's Limits
 *   table names it (`default`, `POST /fuel/level`, `GET /vehicles/{registration}/events`, …) or by
 *   its short name (`fuel_level_bulk`). The client's buckets and the planner use them.
 * - Streams (FLEETSYNC_STREAMS, `streams` of an account): the streams `serve`, `worker` and
 *   `sync` pull, as `--streams` does for one run: `trips,odometer` (only those) or
 *   `-carpool,-drivers` (all but those).
 *
 * Each parser returns every problem, each naming what is wrong.
 */
import { BUCKET_LIMITS, BUCKET_SPEC_NAMES, type BucketName } from './api/buckets.ts';
import { STREAMS } from './sync/types.ts';

export type Limits = Partial<Record<BucketName, number>>;
export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/** The most requests per minute a limit may name (a typo of a few zeros is refused). */
export const MAX_LIMIT = 100_000;

const BUCKETS = Object.keys(BUCKET_LIMITS) as BucketName[];
const knownBuckets = () => BUCKETS.map((b) => BUCKET_SPEC_NAMES[b]).join(', ');

/** A bucket by its spec name (method in any case, `{…}` for the path parameter) or short name. */
export function bucketNamed(name: string): BucketName | null {
  const n = name.trim().replace(/\s+/g, ' ');
  const spec = n.replace(/^(get|post)\b/i, (m) => m.toUpperCase()).replace(/\{[^}]*\}/g, '{registration}');
  return BUCKETS.find((b) => b === n.toLowerCase() || BUCKET_SPEC_NAMES[b] === spec) ?? null;
}

function limitEntry(bucket: string, value: unknown, where: string, limits: Limits, errors: string[]) {
  const b = bucketNamed(bucket);
  if (!b) {
    errors.push(`${where}: unknown bucket ${JSON.stringify(bucket.trim())} (buckets: ${knownBuckets()})`);
    return;
  }
  const text = String(value).trim();
  const n = typeof value === 'number' ? value : /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
    errors.push(
      `${where}: the limit of ${BUCKET_SPEC_NAMES[b]} must be a whole number of requests per minute, 1 to ${MAX_LIMIT.toLocaleString('en')} (got ${JSON.stringify(value)})`,
    );
    return;
  }
  if (limits[b] !== undefined) {
    errors.push(`${where}: ${BUCKET_SPEC_NAMES[b]} is given twice`);
    return;
  }
  limits[b] = n;
}

/** `default=2000,POST /fuel/level=20` (FLEETSYNC_LIMITS). */
export function parseLimits(text: string, where = 'FLEETSYNC_LIMITS'): Parsed<Limits> {
  const limits: Limits = {};
  const errors: string[] = [];
  for (const item of text.split(',').filter((x) => x.trim())) {
    const eq = item.lastIndexOf('=');
    if (eq < 0) {
      errors.push(`${where}: ${JSON.stringify(item.trim())} is not bucket=limit (e.g. default=2000)`);
      continue;
    }
    limitEntry(item.slice(0, eq), item.slice(eq + 1), where, limits, errors);
  }
  return errors.length ? { ok: false, errors } : { ok: true, value: limits };
}

/** `{ "default": 2000, "POST /fuel/level": 20 }` (`limits` of an account in the accounts file). */
export function limitsFromObject(obj: Record<string, unknown>, where: string): Parsed<Limits> {
  const limits: Limits = {};
  const errors: string[] = [];
  for (const [k, v] of Object.entries(obj)) limitEntry(k, v, where, limits, errors);
  return errors.length ? { ok: false, errors } : { ok: true, value: limits };
}

/** Granted (`base` first, then `over` per bucket). */
export const mergeLimits = (base: Limits | undefined, over: Limits | undefined): Limits | undefined =>
  base || over ? { ...base, ...over } : undefined;

/** One line per limit that differs from the spec's: "granted: 2,000/min on the default bucket". */
export function describeLimits(limits: Limits | undefined): string[] {
  return Object.entries(limits ?? {}).flatMap(([b, n]) => {
    const documented = BUCKET_LIMITS[b as BucketName];
    if (n === documented) return [];
    const name = b === 'default' ? 'the default bucket' : BUCKET_SPEC_NAMES[b as BucketName];
    return [
      `${n > documented ? 'granted' : 'lowered'}: ${n.toLocaleString('en')}/min on ${name} (documented ${documented.toLocaleString('en')})`,
    ];
  });
}

/** `trips,odometer` (only those) or `-carpool,-drivers` (all but those), against the registry. */
export function parseStreams(
  text: string | readonly string[],
  where = 'FLEETSYNC_STREAMS',
): Parsed<string[]> {
  const items = (typeof text === 'string' ? text.split(',') : [...text]).map((s) => s.trim()).filter(Boolean);
  const known = STREAMS as readonly string[];
  const errors: string[] = [];
  if (!items.length) errors.push(`${where}: names no stream (streams: ${known.join(', ')})`);
  const out = items.filter((s) => s.startsWith('-'));
  if (out.length && out.length !== items.length)
    errors.push(
      `${where}: either the streams to pull (trips,odometer) or those to leave out (-carpool), not both`,
    );
  const names = items.map((s) => s.replace(/^-/, ''));
  const bad = names.filter((s) => !known.includes(s));
  if (bad.length)
    errors.push(
      `${where}: unknown stream ${bad.map((b) => JSON.stringify(b)).join(', ')} (streams: ${known.join(', ')})`,
    );
  if (errors.length) return { ok: false, errors };
  const value = out.length ? known.filter((s) => !names.includes(s)) : known.filter((s) => names.includes(s));
  if (!value.length) return { ok: false, errors: [`${where}: leaves out every stream`] };
  return { ok: true, value };
}
