/**
 * Tolerant zod 4 building blocks for the wire payloads (see fleet-api-wire-notes.md): numbers as
 * numbers or numeric strings, ids as strings or numbers, booleans as `true`/`"true"`/`1`, every
 * timestamp form through `parseWireTimestamp` (no offset → the account zone), envelopes whose
 * `data` may be `{}`/`null`, `meta` with extra keys. `parsePayload` turns a failure into
 * E_PAYLOAD naming the endpoint, the field and the problem, with a ≤ 300-char body sample.
 */
import { z } from 'zod';
import { FleetsyncError } from '../errors.ts';
import {
  offsetMinutes,
  offsetText,
  parseWireTimestamp,
  readWireTimestamp,
  wireOffsetMinutes,
} from '../time.ts';
import type { PageMeta } from './types.ts';

const NUMERIC = /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/;

/**
 * The fast path of a schema: reads a wire value the way the schema would, with no zod object and
 * no intermediate result. It answers MISS for anything it is not sure of (a wrong type, a form it
 * does not know): the item then goes through the zod schema, which gives the same value or the
 * error naming the field. Attached to a schema with `fast`, found with `fastReader`.
 */
export const MISS: unique symbol = Symbol('not read by the fast path');
export type Fast<T> = (v: unknown) => T | typeof MISS;
const fastOf = new WeakMap<z.ZodType, Fast<unknown>>();

export function fast<S extends z.ZodType>(schema: S, read: Fast<z.output<S>>): S {
  fastOf.set(schema, read as Fast<unknown>);
  return schema;
}
export const fastReader = <T>(schema: z.ZodType<T>): Fast<T> | undefined =>
  fastOf.get(schema) as Fast<T> | undefined;

/** Whether `v` is a JSON object (what `z.object` accepts). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

const blank = (v: unknown) => v === undefined || v === null || v === '';

const readNum = (v: unknown): number | typeof MISS =>
  typeof v === 'number'
    ? Number.isFinite(v)
      ? v
      : MISS
    : typeof v === 'string' && NUMERIC.test(v)
      ? Number(v)
      : MISS;
const readInt = (v: unknown): number | typeof MISS => {
  const n = readNum(v);
  return n !== MISS && Number.isSafeInteger(n) ? n : MISS;
};
const readStr = (v: unknown): string | typeof MISS =>
  typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : MISS;
const BOOL_TEXT: Record<string, boolean> = {
  true: true,
  false: false,
  TRUE: true,
  FALSE: false,
  True: true,
  False: false,
  '1': true,
  '0': false,
};
const readBool = (v: unknown): boolean | typeof MISS =>
  typeof v === 'boolean'
    ? v
    : typeof v === 'string' && Object.hasOwn(BOOL_TEXT, v)
      ? BOOL_TEXT[v]!
      : v === 0 || v === 1
        ? v === 1
        : MISS;

export const num = fast(
  z.union([
    z.number().refine(Number.isFinite, { error: 'not a finite number' }),
    z
      .string()
      .regex(NUMERIC, { error: 'not a number' })
      .transform((s) => Number(s)),
  ]),
  readNum,
);
/** Missing, null and "" are null. */
export const optNum = fast(
  z
    .union([num, z.literal(''), z.null()])
    .optional()
    .transform((v) => (v === '' || v === undefined ? null : v)),
  (v) => (blank(v) ? null : readNum(v)),
);

export const intId = fast(num.pipe(z.number().int({ error: 'not an integer id' })), readInt);
export const optIntId = fast(
  z
    .union([intId, z.literal(''), z.null()])
    .optional()
    .transform((v) => (v === '' || v === undefined ? null : v)),
  (v) => (blank(v) ? null : readInt(v)),
);

export const strId = fast(
  z.union([z.string().min(1, { error: 'empty id' }), z.number().transform(String)]),
  (v) => (v === '' ? MISS : readStr(v)),
);

/** A required string (`z.string()` with its fast path). */
export const str = fast(z.string(), (v) => (typeof v === 'string' ? v : MISS));

export const bool = fast(
  z.union([
    z.boolean(),
    z
      .enum(['true', 'false', 'TRUE', 'FALSE', 'True', 'False', '1', '0'])
      .transform((s) => s === '1' || s.toLowerCase() === 'true'),
    z.union([z.literal(0), z.literal(1)]).transform((n) => n === 1),
  ]),
  readBool,
);
export const optBool = fast(
  z
    .union([bool, z.null()])
    .optional()
    .transform((v) => v ?? null),
  (v) => (v === undefined || v === null ? null : readBool(v)),
);

export const optStr = fast(
  z
    .union([z.string(), z.number().transform(String), z.null()])
    .optional()
    .transform((v) => (v === undefined || v === '' ? null : v)),
  (v) => (blank(v) ? null : readStr(v)),
);
/** An optional string where a value of another type reads as null (informational fields). */
export const optStrOrNull = fast(optStr.catch(null), (v) => {
  const r = blank(v) ? null : readStr(v);
  return r === MISS ? null : r;
});

/**
 * An object of `shape` read by its fields' fast paths, in the shape's order (as `z.object` gives
 * it); undefined when a field has none (the schema then always goes through zod).
 */
export function fastObject<S extends z.core.$ZodLooseShape>(
  shape: S,
): ((v: unknown) => Record<string, unknown> | typeof MISS) | undefined {
  const keys = Object.keys(shape);
  const readers: Fast<unknown>[] = [];
  for (const k of keys) {
    const r = fastOf.get(shape[k] as z.ZodType);
    if (!r) return undefined;
    readers.push(r);
  }
  return (v) => {
    if (!isObject(v)) return MISS;
    const out: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const r = readers[i]!(v[keys[i]!]);
      if (r === MISS) return MISS;
      out[keys[i]!] = r;
    }
    return out;
  };
}

/**
 * Informational fields of a wire item (the ones no rule needs: a trip's title, event counts, …),
 * read without zod: a trip has many, and a zod union costs ~1 µs per field it tries. A field of
 * the expected type is mapped (`read` lists it); one of another type is not mapped and stays in
 * the record's extra_fields as sent, never a failure. Missing, null and "" are null.
 */
export class SoftFields {
  readonly read = new Set<string>();
  constructor(private readonly item: Record<string, unknown>) {}

  private take<T>(key: string, v: T | undefined): T | null {
    if (v === undefined) return null;
    this.read.add(key);
    return v;
  }

  num(key: string): number | null {
    const v = this.item[key];
    if (v === undefined || v === null || v === '') return this.take(key, null);
    if (typeof v === 'number') return this.take(key, Number.isFinite(v) ? v : undefined);
    return this.take(key, typeof v === 'string' && NUMERIC.test(v) ? Number(v) : undefined);
  }

  str(key: string): string | null {
    const v = this.item[key];
    if (v === undefined || v === null || v === '') return this.take(key, null);
    return this.take(key, typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
  }

  bool(key: string): boolean | null {
    const v = this.item[key];
    if (v === undefined || v === null || v === '') return this.take(key, null);
    if (typeof v === 'boolean') return this.take(key, v);
    const s = String(v).toLowerCase();
    return this.take(key, s === 'true' || s === '1' ? true : s === 'false' || s === '0' ? false : undefined);
  }
}

interface ZoneMismatchParams {
  text: string;
  ms: number;
  apiOffset: number;
  zone: string;
}

/** A response timestamp → epoch ms. Strings in any wire form; numbers as epoch seconds or ms. */
export function ts(zone: string) {
  const stated = { offset: null as number | null };
  const schema = z.union([z.string(), z.number()]).transform((v, ctx) => {
    const ms = typeof v === 'number' ? (v > 1e11 ? v : v * 1000) : parseWireTimestamp(v, zone);
    if (ms === null || !Number.isFinite(ms)) {
      ctx.issues.push({
        code: 'custom',
        message: `not a timestamp: ${JSON.stringify(v).slice(0, 40)}`,
        input: v,
      });
      return z.NEVER;
    }
    // The API answers in the account's zone: an offset that is not the configured zone's at this
    // instant means request bounds (local wall time) are read in another zone (parsePayload stops).
    const apiOffset = typeof v === 'string' ? wireOffsetMinutes(v) : null;
    if (apiOffset !== null && apiOffset !== offsetMinutes(ms, zone)) {
      ctx.issues.push({
        code: 'custom',
        message: `offset ${offsetText(apiOffset)} is not ${zone}'s`,
        input: v,
        params: { zoneMismatch: { text: String(v), ms, apiOffset, zone } satisfies ZoneMismatchParams },
      });
      return z.NEVER;
    }
    return ms;
  });
  // The wire's own forms (readWireTimestamp); any other text, and a wrong offset, through zod.
  return fast(schema, (v) => {
    if (typeof v === 'number') return Number.isFinite(v) ? (v > 1e11 ? v : v * 1000) : MISS;
    if (typeof v !== 'string') return MISS;
    const ms = readWireTimestamp(v, stated);
    if (Number.isNaN(ms)) return MISS;
    return stated.offset === null || stated.offset === offsetMinutes(ms, zone) ? ms : MISS;
  });
}

/**
 * The error for a response timestamp whose offset is not the configured zone's at that instant:
 * the API answers in another zone, so the request bounds it was sent (local wall time) meant other
 * instants. It stops the whole run (sync/executor.ts `stopsTheRun`) before anything fetched is written.
 */
export function zoneMismatchError(
  endpoint: string,
  text: string,
  ms: number,
  apiOffsetMinutes: number,
  zone: string,
): FleetsyncError {
  const ours = offsetText(offsetMinutes(ms, zone));
  const theirs = offsetText(apiOffsetMinutes);
  return new FleetsyncError(
    'E_CONFIG',
    `the API answers in ${theirs}, FLEET_TIMEZONE is ${zone}, ${ours} (${endpoint} sent ${JSON.stringify(text)}): ` +
      "set FLEET_TIMEZONE to the account's zone in the Fleet API; the run stopped before writing what it fetched",
    { details: { zoneMismatch: { endpoint, sample: text, apiOffset: theirs, zone, zoneOffset: ours } } },
  );
}

/** Whether `e` is the offset check's refusal (it stops the whole run, not one window). */
export function isZoneMismatch(e: unknown): boolean {
  return e instanceof FleetsyncError && e.details !== undefined && 'zoneMismatch' in e.details;
}
export function optTs(zone: string) {
  const t = ts(zone);
  const read = fastReader(t)!;
  return fast(
    z
      .union([t, z.literal(''), z.null()])
      .optional()
      .transform((v) => (typeof v === 'number' ? v : null)),
    (v) => (blank(v) ? null : read(v)),
  );
}

/** Lists of ints/strings where the wire may send numeric strings or null. */
export const intList = z
  .union([z.array(intId), z.null()])
  .optional()
  .transform((v) => v ?? []);
export const strList = z
  .union([z.array(z.union([z.string(), z.number().transform(String)])), z.null()])
  .optional()
  .transform((v) => v ?? []);

const metaSchema = z.object({
  current_page: intId,
  last_page: intId,
  per_page: optNum,
  total: optNum,
  from: optNum,
  to: optNum,
});

/** `meta` of a list, or null when absent or unusable (pagination then relies on page sizes). */
export function parseMeta(meta: unknown): PageMeta | null {
  const r = metaSchema.safeParse(meta);
  if (!r.success) return null;
  return {
    current_page: r.data.current_page,
    last_page: r.data.last_page,
    per_page: r.data.per_page ?? -1, // -1: unknown
    total: r.data.total ?? -1,
    ...(typeof r.data.from === 'number' ? { from: r.data.from } : {}),
    ...(typeof r.data.to === 'number' ? { to: r.data.to } : {}),
  };
}

export interface PayloadContext {
  endpoint: string;
  /** The raw body, for the ≤ 300-char sample of an E_PAYLOAD. */
  text: string;
}

export function payloadError(
  ctx: PayloadContext,
  what: string,
  cause?: unknown,
  sample?: string,
): FleetsyncError {
  return new FleetsyncError('E_PAYLOAD', `${ctx.endpoint}: ${what}`.slice(0, 400), {
    cause,
    details: { endpoint: ctx.endpoint, sample: (sample ?? ctx.text).slice(0, 300) },
  });
}

/**
 * The ≤ 300-char sample of a failure: the object holding the bad field (not the body's start,
 * which may be another record), led by its key list when it is long, so a renamed or missing
 * field shows even when the values do not fit.
 */
function sampleFor(value: unknown, path: readonly PropertyKey[], text: string): string {
  let holder: unknown = value;
  for (const k of path.slice(0, -1)) {
    if (holder === null || typeof holder !== 'object') break;
    holder = (holder as Record<string, unknown>)[k as string];
  }
  if (holder === null || typeof holder !== 'object') return text.slice(0, 300);
  const json = JSON.stringify(holder);
  if (json.length <= 300) return json;
  const keys = Array.isArray(holder) ? '' : `keys=${Object.keys(holder).join(',')} `;
  return `${keys}${json}`.slice(0, 300);
}

/**
 * The offset check's finding among a parse's issues, also inside a union's branches (an optional
 * timestamp is `ts | '' | null`: its mismatch is nested in an `invalid_union` issue).
 */
function zoneMismatchIn(issues: readonly z.core.$ZodIssue[]): ZoneMismatchParams | undefined {
  for (const i of issues) {
    if (i.code === 'custom' && i.params?.zoneMismatch) return i.params.zoneMismatch as ZoneMismatchParams;
    if (i.code === 'invalid_union')
      for (const branch of i.errors) {
        const zm = zoneMismatchIn(branch);
        if (zm) return zm;
      }
  }
  return undefined;
}

/** Parses with `schema`; a failure names the first failing field (`data.3.fill_timestamp`) and problem. */
export function parsePayload<T>(schema: z.ZodType<T>, value: unknown, ctx: PayloadContext, prefix = ''): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = r.error.issues;
  const zm = zoneMismatchIn(issues);
  if (zm) throw zoneMismatchError(ctx.endpoint, zm.text, zm.ms, zm.apiOffset, zm.zone);
  const first = issues[0];
  const field = [prefix, ...(first?.path ?? []).map(String)].filter(Boolean).join('.') || '(body)';
  const more = issues.length > 1 ? ` (+${issues.length - 1} more issues)` : '';
  const sample = sampleFor(value, first?.path ?? [], ctx.text);
  return throwPayload(ctx, `field ${field}: ${first?.message ?? 'invalid'}${more}`, r.error, sample);
}

function throwPayload(ctx: PayloadContext, what: string, cause: unknown, sample?: string): never {
  throw payloadError(ctx, what, cause, sample);
}

function isEmptyObject(v: unknown): boolean {
  return (
    v === null ||
    v === undefined ||
    (Array.isArray(v) && v.length === 0) ||
    (typeof v === 'object' && Object.keys(v).length === 0)
  );
}

function envelope(json: unknown, ctx: PayloadContext): Record<string, unknown> {
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    return throwPayload(ctx, 'body is not a JSON object with `data`', undefined);
  return json as Record<string, unknown>;
}

/** `{"data": {...}}` → the parsed item, or null for `data: {}`, `null`, missing, or an empty body. */
export function parseSingle<T>(schema: z.ZodType<T>, json: unknown, ctx: PayloadContext): T | null {
  if (json === null) return null;
  const data = envelope(json, ctx).data;
  if (isEmptyObject(data)) return null;
  return parsePayload(schema, data, ctx, 'data');
}

/** `{"data": [...], "meta": {...}}` → items and meta (null when unusable). */
export function parseList<T>(
  schema: z.ZodType<T>,
  json: unknown,
  ctx: PayloadContext,
): { items: T[]; meta: PageMeta | null } {
  if (json === null) return { items: [], meta: null };
  const env = envelope(json, ctx);
  const data = env.data;
  if (
    data === null ||
    data === undefined ||
    (typeof data === 'object' && !Array.isArray(data) && Object.keys(data).length === 0)
  )
    return { items: [], meta: parseMeta(env.meta) };
  if (!Array.isArray(data)) return throwPayload(ctx, 'field data: expected a list', undefined);
  return { items: parseItems(schema, data, ctx), meta: parseMeta(env.meta) };
}

const arrays = new WeakMap<z.ZodType, z.ZodType>();

/**
 * Items read so far by each path (the fast path, zod), and the switch that turns the fast path
 * off: for the tests that hold the two paths to the same records and the benchmark's A/B.
 */
export const parseCounts = { fast: 0, zod: 0 };
let fastPathOn = true;
export function setFastPath(on: boolean): void {
  fastPathOn = on;
}

/**
 * The page's items: every item by the schema's fast path when it has one and reads them all;
 * otherwise (an item in a form it does not read, or one that is wrong) the whole page through zod,
 * so a failure names the same field with the same sample as ever.
 */
function parseItems<T>(schema: z.ZodType<T>, data: unknown[], ctx: PayloadContext): T[] {
  const read = fastPathOn ? fastReader(schema) : undefined;
  if (read) {
    const items: T[] = new Array<T>(data.length);
    let i = 0;
    for (; i < data.length; i++) {
      const r = read(data[i]);
      if (r === MISS) break;
      items[i] = r;
    }
    if (i === data.length) {
      parseCounts.fast += i;
      return items;
    }
  }
  parseCounts.zod += data.length;
  let list = arrays.get(schema) as z.ZodType<T[]> | undefined;
  if (!list) arrays.set(schema, (list = z.array(schema)));
  return parsePayload(list, data, ctx, 'data');
}
