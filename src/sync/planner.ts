/**
 * The planner: "fill the gaps between the coverage wanted and the windows done". For each
 * stream it lays the grid over the wanted range, drops grid windows that done/flagged ledger
 * rows already tile, and makes a unit of work for every other one (missing, incomplete, failed).
 * It estimates requests per bucket (pages from the history already stored) and the least time
 * the rate limits allow, and picks the cheaper of the two equivalent fuel-counter paths.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { leastDurationMs, type BucketName } from '../api/client.ts';
import { queryJs } from '../store/queries.ts';
import { readLedger, isCovered, type LedgerRowRead, type LedgerStream } from './ledger.ts';
import { bookingsUnit } from './streams/bookings.ts';
import { fuelConsumedBulkUnit, fuelConsumedUnit, fuelFillsUnit, fuelLevelUnit } from './streams/fuel.ts';
import { odometerUnit } from './streams/odometer.ts';
import { tripUnit } from './streams/trips.ts';
import { visitsUnit } from './streams/visits.ts';
import type { PlanSummary, StreamName } from './types.ts';
import type { Unit, VehicleRef } from './unit.ts';
import { DAY_MS, cutAt, dayWindows, monthWindows, settledCut, type Window } from './windows.ts';
import { localDate } from '../time.ts';

export interface PlannedVehicle extends VehicleRef {
  fuel_canbus_consumed: boolean;
  fuel_level: boolean; // canbus or analog level sensor
}

export interface PlanInput {
  account: string;
  zone: string;
  range: Window;
  streams: ReadonlySet<StreamName>;
  vehicles: readonly PlannedVehicle[];
  runId: string;
  windowMs: number;
  limits?: Partial<Record<BucketName, number>>;
  /** Force a fuel path (tests, benchmarks); default: whichever the limits finish sooner. */
  fuelPath?: 'per_vehicle_get' | 'bulk_post';
  /** Windows reaching past this instant are fetched in two pieces (see settledPieces): one more request each. */
  settledBeforeMs?: number;
}

export const PAGE_LIMIT = 500;
const BULK_MAX_VEHICLES = 100;

/** Average records per local day seen so far, to estimate pages; defaults before the first sync. */
async function rates(con: DuckDBConnection, account: string, vehicles: number) {
  const [r] = await queryJs(con, 'sync/history_rates', [account]);
  const num = (v: unknown, d: number) =>
    v === null || v === undefined || Number.isNaN(Number(v)) ? d : Number(v);
  return {
    tripsPerDay: num(r?.trips_per_day, Math.max(1, vehicles) * 4),
    visitsPerDay: num(r?.visits_per_day, Math.max(1, vehicles)),
    bookingsPerDay: num(r?.bookings_per_day, 5),
  };
}

const pages = (records: number) => Math.max(1, Math.ceil(records / PAGE_LIMIT));
const days = (w: Window) => (w.endMs - w.startMs) / DAY_MS;

function gaps(grid: Window[], ledger: Map<string, LedgerRowRead[]>, scope: string): Window[] {
  const rows = ledger.get(scope);
  return grid.filter((w) => !isCovered(w, rows));
}

export async function buildPlan(
  con: DuckDBConnection,
  p: PlanInput,
): Promise<{ units: Unit[]; summary: PlanSummary }> {
  const months = monthWindows(p.range.startMs, p.range.endMs, p.zone);
  const dayGrid = dayWindows(p.range.startMs, p.range.endMs, p.zone);
  const r = await rates(con, p.account, p.vehicles.length);
  const ledgers = new Map<LedgerStream, Map<string, LedgerRowRead[]>>();
  const ledger = async (s: LedgerStream, range: Window = p.range) => {
    const key = s;
    if (!ledgers.has(key)) ledgers.set(key, await readLedger(con, p.account, s, range));
    return ledgers.get(key)!;
  };
  const units: Unit[] = [];
  const cut = p.settledBeforeMs === undefined ? null : settledCut(p.settledBeforeMs, p.zone);
  const pieces = (w: Window) => (cut === null ? 1 : cutAt(w, cut).length);
  const notes: string[] = [];

  if (p.streams.has('trips'))
    for (const w of gaps(months, await ledger('trips'), '*'))
      units.push(tripUnit(w, pages(r.tripsPerDay * days(w))));

  if (p.streams.has('odometer')) {
    const l = await ledger('odometer');
    for (const v of p.vehicles)
      for (const w of gaps(months, l, String(v.vehicle_id))) units.push(odometerUnit(v, w, pieces(w)));
  }

  let fuelPath: PlanSummary['fuelPath'] = { chosen: 'per_vehicle_get', getMs: 0, postMs: 0 };
  if (p.streams.has('fuel')) {
    const can = p.vehicles.filter((v) => v.fuel_canbus_consumed);
    const lc = await ledger('fuel_consumed');
    const getUnits = can.flatMap((v) =>
      gaps(months, lc, String(v.vehicle_id)).map((w) => fuelConsumedUnit(v, w, pieces(w))),
    );
    const postUnits: Unit[] = [];
    for (const w of dayGrid) {
      const need = can.filter((v) => !isCovered(w, lc.get(String(v.vehicle_id))));
      for (let i = 0; i < need.length; i += BULK_MAX_VEHICLES)
        postUnits.push(fuelConsumedBulkUnit(need.slice(i, i + BULK_MAX_VEHICLES), w));
    }
    const level = p.vehicles.filter((v) => !v.fuel_canbus_consumed && v.fuel_level);
    const ll = await ledger('fuel_level');
    const lf = await ledger('fuel_fills');
    for (const v of level) {
      for (const w of gaps(months, ll, String(v.vehicle_id))) units.push(fuelLevelUnit(v, w, pieces(w)));
      for (const w of gaps(months, lf, String(v.vehicle_id))) units.push(fuelFillsUnit(v, w));
    }
    const others = byBucket(units);
    const getMs = leastDurationMs(addTo(others, byBucket(getUnits)), {
      windowMs: p.windowMs,
      limits: p.limits,
    });
    const postMs = leastDurationMs(addTo(others, byBucket(postUnits)), {
      windowMs: p.windowMs,
      limits: p.limits,
    });
    const chosen = p.fuelPath ?? (postMs < getMs ? 'bulk_post' : 'per_vehicle_get');
    fuelPath = { chosen, getMs, postMs };
    units.push(...(chosen === 'bulk_post' ? postUnits : getUnits));
    if (can.length)
      notes.push(
        `fuel counter: ${chosen === 'bulk_post' ? 'bulk POST /fuel/consumed (24 h, 100 vehicles, 10/min)' : 'per-vehicle GET /fuel/consumed (31 days)'} — ` +
          `GET path ≥ ${fmt(getMs)}, bulk path ≥ ${fmt(postMs)}`,
      );
  }

  if (p.streams.has('visits'))
    for (const w of gaps(dayGrid, await ledger('visits'), '*'))
      units.push(visitsUnit(w, pages(r.visitsPerDay * days(w))));

  if (p.streams.has('bookings')) {
    // Bookings are scheduled ahead: cover one more month beyond the range.
    const ahead = monthWindows(p.range.startMs, p.range.endMs + 31 * DAY_MS, p.zone);
    const l = await ledger('bookings', { startMs: p.range.startMs, endMs: p.range.endMs + 31 * DAY_MS });
    for (const w of gaps(ahead, l, '*'))
      units.push(bookingsUnit(w, pages(r.bookingsPerDay * days(w)), p.runId));
  }

  const snapshotRequests = ['vehicles', 'geofences', 'carpool'].filter((s) =>
    p.streams.has(s as StreamName),
  ).length;
  const requestsByBucket = addTo(byBucket(units), {
    default: snapshotRequests + (p.streams.has('carpool') ? 1 : 0),
  });
  const requestsByStream: Record<string, number> = {};
  for (const u of units) requestsByStream[u.stream] = (requestsByStream[u.stream] ?? 0) + u.estRequests;
  if (p.vehicles.length === 0 && (p.streams.has('odometer') || p.streams.has('fuel')))
    notes.push('no vehicles known yet: per-vehicle streams are planned after the vehicle list is pulled');
  notes.push(
    'page counts are estimates from the history already stored; splits around odometer or counter resets add a few requests',
  );
  return {
    units,
    summary: {
      account: p.account,
      fromDay: localDate(p.range.startMs, p.zone),
      toDay: localDate(p.range.endMs - 1, p.zone),
      requestsByBucket,
      requestsByStream,
      leastDurationMs: leastDurationMs(requestsByBucket, { windowMs: p.windowMs, limits: p.limits }),
      fuelPath,
      notes,
    },
  };
}

function byBucket(units: readonly Unit[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const u of units) out[u.bucket] = (out[u.bucket] ?? 0) + u.estRequests;
  return out;
}

function addTo(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

export function fmt(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 120) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}
