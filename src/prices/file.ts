/**
 * The prices file (FLEETSYNC_PRICES), JSON or CSV: fuel price per litre by fuel type and local
 * month, toll tariffs per toll geofence and vehicle class from a valid-from day, each vehicle's
 * fuel type and class (the account's defaults otherwise), CO₂ factors. Both formats become the
 * same entries, each with the line it came from, and are checked as a whole: `checkPrices`
 * returns every problem (file and line), never only the first.
 */
import { basename } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { parseTree, type Node as JsonNode, type ParseError } from 'jsonc-parser';
import { z } from 'zod';
import { DEFAULT_EMISSION_FACTORS } from '../defaults.ts';
import { MAX_LISTED_PROBLEMS, firstProblems, readUserFile } from '../text-file.ts';

/** Fuel types every prices file may name; an `emission_factors_kg_per_l` entry adds one. */
export const BUILTIN_FUEL_TYPES = ['diesel', 'petrol', 'electric'] as const;

export type EntryKind =
  'fuel_price' | 'toll_tariff' | 'vehicle' | 'default' | 'emission_factor' | 'grid_factor';

/** One record of the file, as written, with its line (1-based). */
export interface Entry {
  kind: EntryKind;
  line: number;
  fields: Record<string, unknown>;
}

export interface RawPrices {
  file: string;
  sha256: string;
  currency: string | null;
  entries: Entry[];
  /** Problems found while reading (syntax, missing columns, unknown record kinds). */
  problems: Problem[];
}

export interface Problem {
  line: number;
  message: string;
}

const day = z.iso.date({ error: 'must be a day YYYY-MM-DD' });
const name = z.string({ error: 'is missing' }).trim().min(1, { error: 'is missing' });
const price = z
  .number({ error: (i) => (i.input === undefined ? 'is missing' : 'must be a number') })
  .min(0, { error: 'must not be negative' });
const ENTRY_SCHEMAS = {
  fuel_price: z.object({
    fuel_type: name,
    month: z.string({ error: 'is missing' }).regex(/^\d{4}-(0[1-9]|1[0-2])$/, { error: 'must be YYYY-MM' }),
    price_per_l: price,
  }),
  toll_tariff: z.object({
    geofence_id: name,
    vehicle_class: name,
    valid_from: day,
    valid_to: day.nullish(),
    charge: price,
  }),
  vehicle: z
    .object({
      vehicle: z.union([z.number().int().positive(), name], { error: 'is missing' }),
      fuel_type: name.nullish(),
      vehicle_class: name.nullish(),
    })
    .refine((v) => v.fuel_type || v.vehicle_class, {
      error: 'names neither a fuel_type nor a vehicle_class',
    }),
  default: z.object({ fuel_type: name, vehicle_class: name }),
  emission_factor: z.object({ fuel_type: name, kg_per_l: price }),
  grid_factor: z.object({ kg_per_kwh: price }),
} as const;

export type FuelPrice = z.infer<(typeof ENTRY_SCHEMAS)['fuel_price']>;
export type TollTariff = z.infer<(typeof ENTRY_SCHEMAS)['toll_tariff']>;
export type VehicleProfile = z.infer<(typeof ENTRY_SCHEMAS)['vehicle']>;

/** The file's contents once every check passed. */
export interface Prices {
  file: string;
  sha256: string;
  currency: string | null;
  defaults: { fuel_type: string; vehicle_class: string };
  emissionFactors: Record<string, number>;
  gridKgPerKwh: number | null;
  fuel: FuelPrice[];
  tolls: TollTariff[];
  /** vehicle: a vehicle_id, or a registration (resolved by `checkPrices`). */
  vehicles: (VehicleProfile & { vehicle_id: number })[];
}

/** What the database knows, to refuse a geofence or vehicle it does not hold. */
export interface Known {
  /** Toll geofence ids of the account; null = none synced yet (not checked). */
  tollGeofences: ReadonlySet<string> | null;
  /** Registration (as stored, compared without case and spaces) → vehicle_id; null = none synced. */
  vehicles: ReadonlyMap<string, number> | null;
}

export const plate = (s: string) => s.replace(/\s+/g, '').toUpperCase();

// ---------------------------------------------------------------------------------------------
// Reading

/** Offset → line (1-based), by binary search over the line starts (once per file, not per entry). */
export function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/** Plain value of a JSON node (jsonc-parser's tree keeps offsets for the lines). */
export function valueOf(n: JsonNode): unknown {
  if (n.type === 'object')
    return Object.fromEntries(
      (n.children ?? []).map((p) => [String(p.children![0]!.value), valueOf(p.children![1]!)]),
    );
  if (n.type === 'array') return (n.children ?? []).map(valueOf);
  return n.value;
}

/** A user file's one JSON object: its properties (key, value node, line), or the problems. */
export function jsonObjectProps(text: string): {
  props: { key: string; node: JsonNode; line: number }[] | null;
  at: (offset: number) => number;
  problems: Problem[];
} {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: false, disallowComments: true });
  const at = lineIndex(text);
  const problems: Problem[] = errors.map((e) => ({ line: at(e.offset), message: 'not valid JSON here' }));
  if (!root || root.type !== 'object') {
    if (!problems.length) problems.push({ line: 1, message: 'the file must hold one JSON object' });
    return { props: null, at, problems };
  }
  const props = (root.children ?? []).map((prop) => {
    const node = prop.children![1]!;
    return { key: String(prop.children![0]!.value), node, line: at(node.offset) };
  });
  return { props, at, problems };
}

/** The objects of a JSON list `key` with their lines; anything else in it is a problem. */
export function jsonListObjects(
  key: string,
  node: JsonNode,
  at: (offset: number) => number,
  problems: Problem[],
): { line: number; fields: Record<string, unknown> }[] {
  if (node.type !== 'array') {
    problems.push({ line: at(node.offset), message: `${key} must be a list` });
    return [];
  }
  const out: { line: number; fields: Record<string, unknown> }[] = [];
  for (const item of node.children ?? []) {
    const v = valueOf(item);
    const line = at(item.offset);
    if (!v || typeof v !== 'object' || Array.isArray(v))
      problems.push({ line, message: `an entry of ${key} must be an object` });
    else out.push({ line, fields: { ...(v as Record<string, unknown>) } });
  }
  return out;
}

/** A user CSV file's rows (header lower-cased) with their lines and the header, or its problem. */
export function csvRecords(
  text: string,
): { rows: { record: Record<string, string>; line: number }[]; header: Set<string> } | { problem: Problem } {
  let rows: { record: Record<string, string>; info: { lines: number } }[];
  try {
    rows = parseCsv(text, {
      columns: (h: string[]) => h.map((x) => x.trim().toLowerCase()),
      info: true,
      skip_empty_lines: true,
      relax_column_count: true,
    }) as typeof rows;
  } catch (e) {
    const line = (e as { lines?: number }).lines ?? 1;
    return { problem: { line, message: `not valid CSV: ${(e as Error).message}` } };
  }
  const header = new Set(Object.keys(rows[0]?.record ?? {}));
  if (!rows.length) {
    const first = text.split(/\r?\n/)[0] ?? '';
    first.split(',').forEach((h) => header.add(h.trim().toLowerCase()));
  }
  if (!header.has('record')) return { problem: { line: 1, message: 'missing column record' } };
  return { rows: rows.map((r) => ({ record: r.record, line: r.info.lines })), header };
}

/**
 * A record-kind CSV (the prices file, the service plan): each row's kind from its `record` cell
 * and the columns its kind needs that the header lacks; a row of another kind is a problem of its
 * line and left out.
 */
export function csvKindRecords<K extends string>(
  text: string,
  columns: Record<K, readonly string[]>,
):
  | {
      rows: { record: Record<string, string>; line: number; kind: K; absent: string[] }[];
      problems: Problem[];
    }
  | { problem: Problem } {
  const read = csvRecords(text);
  if ('problem' in read) return read;
  const kinds = Object.keys(columns) as K[];
  const problems: Problem[] = [];
  const rows = read.rows.flatMap(({ record, line }) => {
    const kind = (record.record ?? '').trim() as K;
    if (kinds.includes(kind))
      return [{ record, line, kind, absent: columns[kind].filter((c) => !read.header.has(c)) }];
    problems.push({
      line,
      message: `record ${JSON.stringify(record.record ?? '')} is not one of ${kinds.join(', ')}`,
    });
    return [];
  });
  return { rows, problems };
}

const JSON_LISTS: Record<string, EntryKind> = {
  fuel_prices: 'fuel_price',
  toll_tariffs: 'toll_tariff',
  vehicles: 'vehicle',
};
const JSON_KEYS = [
  'currency',
  'defaults',
  'emission_factors_kg_per_l',
  'grid_kg_per_kwh',
  ...Object.keys(JSON_LISTS),
];

function readJson(text: string): Pick<RawPrices, 'currency' | 'entries' | 'problems'> {
  const { props, at, problems } = jsonObjectProps(text);
  const entries: Entry[] = [];
  if (!props) return { currency: null, entries, problems };
  let currency: string | null = null;
  for (const { key, node, line } of props) {
    const kind = JSON_LISTS[key];
    if (kind) {
      for (const { line: l, fields } of jsonListObjects(key, node, at, problems)) {
        if (kind === 'vehicle') fields.vehicle = fields.vehicle_id ?? fields.registration;
        entries.push({ kind, line: l, fields });
      }
    } else if (key === 'defaults') {
      entries.push({ kind: 'default', line, fields: (valueOf(node) ?? {}) as Record<string, unknown> });
    } else if (key === 'emission_factors_kg_per_l') {
      if (node.type !== 'object') problems.push({ line, message: `${key} must be an object` });
      for (const p of node.children ?? [])
        entries.push({
          kind: 'emission_factor',
          line: at(p.offset),
          fields: { fuel_type: p.children![0]!.value, kg_per_l: valueOf(p.children![1]!) },
        });
    } else if (key === 'grid_kg_per_kwh') {
      entries.push({ kind: 'grid_factor', line, fields: { kg_per_kwh: valueOf(node) } });
    } else if (key === 'currency') {
      if (typeof node.value === 'string') currency = node.value;
      else problems.push({ line, message: 'currency must be text (e.g. "AUD")' });
    } else
      problems.push({ line, message: `unknown key ${JSON.stringify(key)} (known: ${JSON_KEYS.join(', ')})` });
  }
  return { currency, entries, problems };
}

/** The CSV columns each record kind needs (`record` names the kind on every row). */
const CSV_COLUMNS: Record<EntryKind, readonly string[]> = {
  fuel_price: ['fuel_type', 'month', 'price'],
  toll_tariff: ['geofence_id', 'vehicle_class', 'valid_from', 'price'],
  vehicle: ['vehicle'],
  default: ['fuel_type', 'vehicle_class'],
  emission_factor: ['fuel_type', 'factor'],
  grid_factor: ['factor'],
};
/** A CSV cell as text, trimmed; undefined when empty. */
export const csvText = (s: unknown) => (typeof s === 'string' && s.trim() !== '' ? s.trim() : undefined);
/** A CSV cell as a number; the text itself when it is not one (the schema names it); undefined when empty. */
export const csvNumber = (s: unknown) => {
  const t = csvText(s);
  if (t === undefined) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
};

function readCsv(text: string): Pick<RawPrices, 'currency' | 'entries' | 'problems'> {
  const problems: Problem[] = [];
  const entries: Entry[] = [];
  const read = csvKindRecords(text, CSV_COLUMNS);
  if ('problem' in read) return { currency: null, entries, problems: [read.problem] };
  problems.push(...read.problems);
  const missing = new Map<string, EntryKind[]>();
  for (const { record: r, line, kind, absent } of read.rows) {
    for (const c of absent) missing.set(c, [...new Set([...(missing.get(c) ?? []), kind])]);
    if (absent.length) continue;
    const fields: Record<string, unknown> = {
      fuel_type: csvText(r.fuel_type),
      vehicle_class: csvText(r.vehicle_class),
      month: csvText(r.month),
      geofence_id: csvText(r.geofence_id),
      valid_from: csvText(r.valid_from),
      valid_to: csvText(r.valid_to) ?? null,
    };
    if (kind === 'fuel_price') fields.price_per_l = csvNumber(r.price);
    if (kind === 'toll_tariff') fields.charge = csvNumber(r.price);
    if (kind === 'emission_factor') fields.kg_per_l = csvNumber(r.factor);
    if (kind === 'grid_factor') fields.kg_per_kwh = csvNumber(r.factor);
    if (kind === 'vehicle') {
      const v = csvText(r.vehicle);
      fields.vehicle = v !== undefined && /^\d+$/.test(v) ? Number(v) : v;
    }
    entries.push({ kind, line, fields });
  }
  for (const [c, kinds] of missing)
    problems.push({ line: 1, message: `missing column ${c} (needed by the ${kinds.join(', ')} rows)` });
  return { currency: null, entries, problems };
}

/** Reads the file; a file that cannot be read is one problem, not an exception. */
export function readPricesFile(path: string): RawPrices {
  const f = readUserFile(path);
  if ('problem' in f)
    return {
      file: path,
      sha256: '',
      currency: null,
      entries: [],
      problems: [{ line: 0, message: f.problem }],
    };
  return { file: path, sha256: f.sha256, ...(f.isJson ? readJson(f.text) : readCsv(f.text)) };
}

// ---------------------------------------------------------------------------------------------
// Checking

const describeIssue = (i: z.core.$ZodIssue, fields: Record<string, unknown>) => {
  const field = String(i.path[0] ?? '');
  const got = field && fields[field] !== undefined ? ` (got ${JSON.stringify(fields[field])})` : '';
  return field ? `${field} ${i.message}${got}` : i.message;
};

/**
 * Every problem of the file: each entry against its schema, then unknown fuel types, vehicles and
 * toll geofences, two prices for one fuel type and month, and tariffs whose validity overlaps.
 */
export function checkPrices(raw: RawPrices, known: Known): { prices: Prices | null; problems: Problem[] } {
  const problems = [...raw.problems];
  const ok: { kind: EntryKind; line: number; v: Record<string, unknown> }[] = [];
  for (const e of raw.entries) {
    const r = ENTRY_SCHEMAS[e.kind].safeParse(e.fields);
    if (r.success) ok.push({ kind: e.kind, line: e.line, v: r.data as Record<string, unknown> });
    else for (const i of r.error.issues) problems.push({ line: e.line, message: describeIssue(i, e.fields) });
  }
  const of = <K extends EntryKind>(k: K) =>
    ok.filter((x) => x.kind === k) as unknown as { line: number; v: z.infer<(typeof ENTRY_SCHEMAS)[K]> }[];

  const emissionFactors: Record<string, number> = { ...DEFAULT_EMISSION_FACTORS };
  for (const { v } of of('emission_factor')) emissionFactors[v.fuel_type] = v.kg_per_l;
  const fuelTypes = new Set<string>([...BUILTIN_FUEL_TYPES, ...Object.keys(emissionFactors)]);
  const fuelTypeOk = (t: string | null | undefined, line: number) => {
    if (t && !fuelTypes.has(t))
      problems.push({
        line,
        message: `unknown fuel type ${JSON.stringify(t)} (known: ${[...fuelTypes].join(', ')})`,
      });
  };

  const defaults = of('default');
  if (defaults.length === 0 && raw.entries.every((e) => e.kind !== 'default'))
    problems.push({
      line: 1,
      message: "no defaults: give the account's default fuel_type and vehicle_class",
    });
  if (defaults.length > 1)
    problems.push({
      line: defaults[1]!.line,
      message: `a second defaults record (the first is on line ${defaults[0]!.line})`,
    });
  for (const d of defaults) fuelTypeOk(d.v.fuel_type, d.line);

  const fuel = of('fuel_price');
  const seenFuel = new Map<string, number>();
  for (const { line, v } of fuel) {
    fuelTypeOk(v.fuel_type, line);
    const key = `${v.fuel_type} ${v.month}`;
    const first = seenFuel.get(key);
    if (first !== undefined)
      problems.push({
        line,
        message: `overlapping validity: a second price for ${v.fuel_type} in ${v.month} (also on line ${first})`,
      });
    else seenFuel.set(key, line);
  }

  const tolls = of('toll_tariff');
  const byKey = new Map<string, { line: number; v: TollTariff }[]>();
  for (const t of tolls) {
    if (known.tollGeofences && !known.tollGeofences.has(t.v.geofence_id))
      problems.push({
        line: t.line,
        message: `unknown geofence ${JSON.stringify(t.v.geofence_id)}: not a toll geofence of the account`,
      });
    if (t.v.valid_to && t.v.valid_to < t.v.valid_from)
      problems.push({
        line: t.line,
        message: `valid_to ${t.v.valid_to} is before valid_from ${t.v.valid_from}`,
      });
    const k = `${t.v.geofence_id}\u0000${t.v.vehicle_class}`;
    const list = byKey.get(k);
    if (list) list.push(t);
    else byKey.set(k, [t]);
  }
  for (const list of byKey.values()) {
    list.sort((a, b) =>
      a.v.valid_from < b.v.valid_from ? -1 : a.v.valid_from > b.v.valid_from ? 1 : a.line - b.line,
    );
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1]!;
      const cur = list[i]!;
      const prevEnd = prev.v.valid_to ?? null;
      if (cur.v.valid_from === prev.v.valid_from || (prevEnd !== null && prevEnd >= cur.v.valid_from))
        problems.push({
          line: cur.line,
          message: `overlapping validity: the tariff for ${cur.v.geofence_id} / ${cur.v.vehicle_class} from ${cur.v.valid_from} overlaps the one on line ${prev.line} (from ${prev.v.valid_from}${prevEnd ? ` to ${prevEnd}` : ''})`,
        });
    }
  }

  const vehicles: Prices['vehicles'] = [];
  const seenVehicle = new Map<number, number>();
  const knownIds = known.vehicles ? new Set(known.vehicles.values()) : null;
  for (const { line, v } of of('vehicle')) {
    fuelTypeOk(v.fuel_type, line);
    let id: number | undefined;
    if (typeof v.vehicle === 'number') {
      id = v.vehicle;
      if (knownIds && !knownIds.has(id))
        problems.push({ line, message: `unknown vehicle ${id}: no such vehicle_id in the account` });
    } else if (known.vehicles) {
      id = known.vehicles.get(plate(v.vehicle));
      if (id === undefined)
        problems.push({
          line,
          message: `unknown vehicle ${JSON.stringify(v.vehicle)}: no such registration in the account`,
        });
    } else
      problems.push({
        line,
        message: `vehicle ${JSON.stringify(v.vehicle)}: name it by vehicle_id until the vehicles are synced`,
      });
    if (id === undefined) continue;
    const first = seenVehicle.get(id);
    if (first !== undefined)
      problems.push({ line, message: `vehicle ${id} is listed twice (also on line ${first})` });
    seenVehicle.set(id, line);
    vehicles.push({ ...v, vehicle_id: id });
  }
  const grid = of('grid_factor');

  problems.sort((a, b) => a.line - b.line);
  if (problems.length) return { prices: null, problems };
  return {
    prices: {
      file: raw.file,
      sha256: raw.sha256,
      currency: raw.currency,
      defaults: defaults[0]!.v,
      emissionFactors,
      gridKgPerKwh: grid[0]?.v.kg_per_kwh ?? null,
      fuel: fuel.map((x) => x.v),
      tolls: tolls.map((x) => x.v),
      vehicles,
    },
    problems,
  };
}

/**
 * One message with the count and the first MAX_LISTED_PROBLEMS problems, by line:
 * `FLEETSYNC_PRICES prices.csv: 3 problems` then `file:line: …`.
 */
export function describeProblems(
  file: string,
  problems: readonly Problem[],
  variable = 'FLEETSYNC_PRICES',
): string {
  const n = problems.length;
  const lines = problems.map((p) => `${basename(file)}${p.line ? `:${p.line}` : ''}: ${p.message}`);
  return (
    `${variable} ${file}: ${n.toLocaleString('en')} problem${n === 1 ? '' : 's'}; nothing was changed` +
    (n > MAX_LISTED_PROBLEMS ? `; the first ${MAX_LISTED_PROBLEMS}:` : '') +
    '\n' +
    firstProblems(lines)
      .map((l) => `  ${l}`)
      .join('\n')
  );
}
