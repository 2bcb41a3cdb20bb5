/**
 * The service plan file (FLEETSYNC_SERVICE_PLAN), JSON or CSV: service intervals by vehicle, by
 * vehicle class or for the whole fleet (every N km and/or every M months), the services done
 * (local day and odometer reading, km) and the warning distance and time. Read like the prices
 * file (src/prices/file.ts): both formats become the same entries, each with its line, and
 * `checkServicePlan` returns every problem (line and message), never only the first.
 */
import { z } from 'zod';
import { DEFAULT_SERVICE_WARN_DAYS, DEFAULT_SERVICE_WARN_KM } from '../defaults.ts';
import {
  csvKindRecords,
  csvNumber,
  csvText,
  jsonListObjects,
  jsonObjectProps,
  plate,
  valueOf,
  type Problem,
} from '../prices/file.ts';
import { readUserFile } from '../text-file.ts';

export type { Problem };
export type ServiceEntryKind = 'interval' | 'service' | 'warning';

export interface ServiceEntry {
  kind: ServiceEntryKind;
  line: number;
  fields: Record<string, unknown>;
}

export interface RawServicePlan {
  file: string;
  sha256: string;
  entries: ServiceEntry[];
  problems: Problem[];
}

const num = (what: string) =>
  z.number({ error: (i) => (i.input === undefined ? 'is missing' : `must be ${what}`) });
const vehicle = z.union([z.number().int().positive(), z.string().trim().min(1)], {
  error: 'must be a vehicle_id or a registration',
});
const ENTRY_SCHEMAS = {
  interval: z
    .object({
      vehicle: vehicle.nullish(),
      vehicle_class: z.string().trim().min(1, { error: 'must not be empty' }).nullish(),
      every_km: num('a number of km').positive({ error: 'must be more than 0' }).nullish(),
      every_months: num('a whole number of months')
        .int({ error: 'must be a whole number of months' })
        .positive({ error: 'must be more than 0' })
        .nullish(),
    })
    .refine((v) => v.every_km != null || v.every_months != null, {
      error: 'gives neither every_km nor every_months',
    })
    .refine((v) => v.vehicle == null || v.vehicle_class == null, {
      error:
        'names both a vehicle and a vehicle_class: an interval is for one of them (or neither: the fleet)',
    }),
  service: z.object({
    vehicle: z.union([z.number().int().positive(), z.string().trim().min(1)], { error: 'is missing' }),
    date: z.iso.date({ error: 'must be a day YYYY-MM-DD' }),
    odometer_km: num('a number of km').min(0, { error: 'must not be negative' }),
  }),
  warning: z.object({
    km: num('a number of km').min(0, { error: 'must not be negative' }).nullish(),
    days: num('a whole number of days')
      .int({ error: 'must be a whole number of days' })
      .min(0, { error: 'must not be negative' })
      .nullish(),
  }),
} as const;

export interface ServiceInterval {
  vehicle_id: number | null;
  vehicle_class: string | null;
  every_km: number | null;
  every_months: number | null;
  line: number;
}
export interface ServiceRecord {
  vehicle_id: number;
  date: string;
  odometer_km: number;
}
export interface ServicePlan {
  file: string;
  sha256: string;
  warnKm: number;
  warnDays: number;
  intervals: ServiceInterval[];
  services: ServiceRecord[];
}

// ---------------------------------------------------------------------------------------------
// Reading

const JSON_LISTS: Record<string, ServiceEntryKind> = { intervals: 'interval', services: 'service' };
const JSON_KEYS = ['warning', ...Object.keys(JSON_LISTS)];

function readJson(text: string): Pick<RawServicePlan, 'entries' | 'problems'> {
  const { props, at, problems } = jsonObjectProps(text);
  const entries: ServiceEntry[] = [];
  if (!props) return { entries, problems };
  for (const { key, node, line } of props) {
    const kind = JSON_LISTS[key];
    if (kind) {
      for (const { line: l, fields } of jsonListObjects(key, node, at, problems)) {
        fields.vehicle = fields.vehicle ?? fields.vehicle_id ?? fields.registration;
        entries.push({ kind, line: l, fields });
      }
    } else if (key === 'warning') {
      const v = valueOf(node);
      if (!v || typeof v !== 'object' || Array.isArray(v))
        problems.push({ line, message: 'warning must be an object: {"km": …, "days": …}' });
      else entries.push({ kind: 'warning', line, fields: v as Record<string, unknown> });
    } else
      problems.push({ line, message: `unknown key ${JSON.stringify(key)} (known: ${JSON_KEYS.join(', ')})` });
  }
  return { entries, problems };
}

const CSV_COLUMNS: Record<ServiceEntryKind, readonly string[]> = {
  interval: [],
  service: ['vehicle', 'date', 'odometer_km'],
  warning: [],
};
const csvVehicle = (s: unknown) => {
  const v = csvText(s);
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : v;
};

function readCsv(text: string): Pick<RawServicePlan, 'entries' | 'problems'> {
  const problems: Problem[] = [];
  const entries: ServiceEntry[] = [];
  const read = csvKindRecords(text, CSV_COLUMNS);
  if ('problem' in read) return { entries, problems: [read.problem] };
  problems.push(...read.problems);
  const missing = new Set<string>();
  for (const { record: r, line, kind, absent } of read.rows) {
    absent.forEach((c) => missing.add(c));
    if (absent.length) continue;
    const fields: Record<string, unknown> =
      kind === 'warning'
        ? { km: csvNumber(r.warn_km), days: csvNumber(r.warn_days) }
        : {
            vehicle: csvVehicle(r.vehicle),
            vehicle_class: csvText(r.vehicle_class),
            every_km: csvNumber(r.every_km),
            every_months: csvNumber(r.every_months),
            date: csvText(r.date),
            odometer_km: csvNumber(r.odometer_km),
          };
    entries.push({ kind, line, fields });
  }
  for (const c of missing)
    problems.push({ line: 1, message: `missing column ${c} (needed by the service rows)` });
  return { entries, problems };
}

/** Reads the file; a file that cannot be read is one problem, not an exception. */
export function readServicePlanFile(path: string): RawServicePlan {
  const f = readUserFile(path);
  if ('problem' in f)
    return { file: path, sha256: '', entries: [], problems: [{ line: 0, message: f.problem }] };
  return { file: path, sha256: f.sha256, ...(f.isJson ? readJson(f.text) : readCsv(f.text)) };
}

// ---------------------------------------------------------------------------------------------
// Checking

/** What the database knows: registration (plate) → vehicle_id, null when no vehicle is synced yet. */
export interface ServiceKnown {
  vehicles: ReadonlyMap<string, number> | null;
  /** The account's local today (YYYY-MM-DD): a service after it is refused. */
  today: string;
}

/** A vehicle named by id or registration, resolved against `known` (a problem when it cannot be). */
export function resolveVehicle(
  v: number | string,
  known: ServiceKnown,
): { id: number } | { problem: string } {
  if (typeof v === 'number') {
    if (known.vehicles && ![...known.vehicles.values()].includes(v))
      return { problem: `unknown vehicle ${v}: no such vehicle_id in the account` };
    return { id: v };
  }
  if (!known.vehicles)
    return { problem: `vehicle ${JSON.stringify(v)}: name it by vehicle_id until the vehicles are synced` };
  const id = known.vehicles.get(plate(v));
  return id === undefined
    ? { problem: `unknown vehicle ${JSON.stringify(v)}: no such registration in the account` }
    : { id };
}

const describeIssue = (i: z.core.$ZodIssue, fields: Record<string, unknown>) => {
  const field = String(i.path[0] ?? '');
  const got = field && fields[field] !== undefined ? ` (got ${JSON.stringify(fields[field])})` : '';
  return field ? `${field} ${i.message}${got}` : i.message;
};

/**
 * Every problem of the plan: each entry against its schema, unknown vehicles, a service after
 * today, two intervals for one vehicle, class or the fleet, two services of one vehicle on one
 * day, a later service with a lower odometer reading than an earlier one, a second warning, and
 * a plan without any interval.
 */
export function checkServicePlan(
  raw: RawServicePlan,
  known: ServiceKnown,
): { plan: ServicePlan | null; problems: Problem[] } {
  const problems = [...raw.problems];
  const intervals: ServiceInterval[] = [];
  const services: (ServiceRecord & { line: number })[] = [];
  const scopes = new Map<string, number>();
  let warning: { line: number; km: number | null; days: number | null } | null = null;
  for (const e of raw.entries) {
    const r = ENTRY_SCHEMAS[e.kind].safeParse(e.fields);
    if (!r.success) {
      for (const i of r.error.issues) problems.push({ line: e.line, message: describeIssue(i, e.fields) });
      continue;
    }
    const at = (message: string) => problems.push({ line: e.line, message });
    if (e.kind === 'warning') {
      const w = r.data as z.infer<(typeof ENTRY_SCHEMAS)['warning']>;
      if (warning) at(`a second warning (the first is on line ${warning.line})`);
      else warning = { line: e.line, km: w.km ?? null, days: w.days ?? null };
    } else if (e.kind === 'interval') {
      const v = r.data as z.infer<(typeof ENTRY_SCHEMAS)['interval']>;
      let vehicleId: number | null = null;
      if (v.vehicle != null) {
        const got = resolveVehicle(v.vehicle, known);
        if ('problem' in got) {
          at(got.problem);
          continue;
        }
        vehicleId = got.id;
      }
      const scope =
        vehicleId !== null
          ? `vehicle ${vehicleId}`
          : v.vehicle_class
            ? `vehicle class ${JSON.stringify(v.vehicle_class)}`
            : 'the whole fleet';
      const first = scopes.get(scope);
      if (first !== undefined) at(`a second interval for ${scope} (the first is on line ${first})`);
      else scopes.set(scope, e.line);
      intervals.push({
        vehicle_id: vehicleId,
        vehicle_class: vehicleId === null ? (v.vehicle_class ?? null) : null,
        every_km: v.every_km ?? null,
        every_months: v.every_months ?? null,
        line: e.line,
      });
    } else {
      const v = r.data as z.infer<(typeof ENTRY_SCHEMAS)['service']>;
      const got = resolveVehicle(v.vehicle, known);
      if ('problem' in got) {
        at(got.problem);
        continue;
      }
      if (v.date > known.today) at(`date ${v.date} is after today (${known.today})`);
      services.push({ vehicle_id: got.id, date: v.date, odometer_km: v.odometer_km, line: e.line });
    }
  }
  if (!intervals.length && !raw.entries.some((e) => e.kind === 'interval'))
    problems.push({ line: 1, message: 'no intervals: give at least one (every_km and/or every_months)' });
  const byVehicle = new Map<number, (ServiceRecord & { line: number })[]>();
  for (const s of services) byVehicle.set(s.vehicle_id, [...(byVehicle.get(s.vehicle_id) ?? []), s]);
  for (const list of byVehicle.values()) {
    list.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.line - b.line));
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1]!;
      const cur = list[i]!;
      if (cur.date === prev.date)
        problems.push({
          line: cur.line,
          message: `a second service of vehicle ${cur.vehicle_id} on ${cur.date} (also on line ${prev.line})`,
        });
      else if (cur.odometer_km < prev.odometer_km)
        problems.push({
          line: cur.line,
          message: `odometer_km ${cur.odometer_km} is below the ${prev.odometer_km} of the earlier service on ${prev.date} (line ${prev.line})`,
        });
    }
  }
  problems.sort((a, b) => a.line - b.line);
  if (problems.length) return { plan: null, problems };
  return {
    plan: {
      file: raw.file,
      sha256: raw.sha256,
      warnKm: warning?.km ?? DEFAULT_SERVICE_WARN_KM,
      warnDays: warning?.days ?? DEFAULT_SERVICE_WARN_DAYS,
      intervals,
      services: services.map(({ vehicle_id, date, odometer_km }) => ({ vehicle_id, date, odometer_km })),
    },
    problems,
  };
}
