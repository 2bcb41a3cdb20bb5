/**
 * Fuel, per vehicle:
 * - CAN vehicles: the cumulative ECU counter per window (`fuel_consumed`). A window whose counter
 *   went down (a counter reset; the rule is the model layer's, rules.ts) is split at local
 *   midnights until the flagged window is one local day; it is stored flagged with the reason
 *   code fuel_counter_went_down and left out of fuel used, never negative. Two equivalent paths:
 *   per-vehicle GET over ≤31-day windows (default bucket) or bulk POST over ≤24 h for up to 100
 *   vehicles (10/min); the planner picks the one that finishes sooner.
 * - level-sensor vehicles without the counter: the level estimate per window (`fuel_level`).
 * - every level-sensor vehicle (CAN or analog level, counter or not): the fills (`fuel_fills`, a
 *   fill listed twice stored once), per local month whichever sends fewer requests: per vehicle
 *   (GET /fuel/fills/{registration}, one month window each) or fleet-wide per local day (GET
 *   /fuel/fills, ≤ 24 h, a ledger row per vehicle that lacked the day). Both draw on the default
 *   bucket.
 */
import { isAccessRefusal } from '../../api/access.ts';
import type { RequestMeter } from '../../api/client.ts';
import type { FuelConsumed, FuelFill, FuelLevel } from '../../api/types.ts';
import { BULK_MAX_VEHICLES } from '../../defaults.ts';
import {
  emptyStatus,
  isCovered,
  pointLedger,
  settledPieces,
  settledStatus,
  type LedgerEntry,
} from '../ledger.ts';
import {
  addRequests,
  defineStream,
  fmt,
  requestsByBucket,
  type PlanContext,
  type PlannedVehicle,
} from '../stream.ts';
import { describeError, isFleetsyncError } from '../../errors.ts';
import { execute } from '../../store/queries.ts';
import { iso } from '../../time.ts';
import { pointWindow, vehicleWindowRange, type StreamContext, type Unit, type VehicleRef } from '../unit.ts';
import { splitAtMidnight, type Window } from '../windows.ts';

/** The reason code the model layer gives a counter answer that went down (rules.ts), else null. */
const wentDown = (ctx: StreamContext, f: FuelConsumed | null) =>
  f ? ctx.rules.fuelCounterWentDown(f) : Promise.resolve(null);

function consumedEntry(
  ctx: StreamContext,
  v: VehicleRef,
  w: Window,
  f: FuelConsumed | null,
  flag: string | null,
  requests: number,
): LedgerEntry {
  const base = {
    stream: 'fuel_consumed' as const,
    scope: String(v.vehicle_id),
    startMs: w.startMs,
    endMs: w.endMs,
    requests,
  };
  if (!f) return { ...base, ...emptyStatus(ctx, w, base.scope, 'no CAN fuel data for the period'), rows: 0 };
  if (flag !== null) return { ...base, status: 'flagged', rows: 1, reason: flag };
  const s = settledStatus(ctx, w, base.scope);
  return { ...base, status: s.status, reason: s.reason, rows: 1 };
}

const consumedRow = (account: string, vehicleId: number, w: Window, f: FuelConsumed) => ({
  account,
  vehicle_id: vehicleId,
  window_start: w.startMs,
  window_end: w.endMs,
  counter_start_l: f.counter_start_l,
  counter_end_l: f.counter_end_l,
  fuel_consumed_l: f.fuel_consumed_l,
});

/** Per-vehicle GET /fuel/consumed/{registration} over a ≤31-day window, split on a counter reset. */
export function fuelConsumedUnit(v: VehicleRef, w: Window, estRequests = 1): Unit {
  return {
    stream: 'fuel',
    ledgerStream: 'fuel_consumed',
    scope: String(v.vehicle_id),
    window: w,
    bucket: 'default',
    estRequests,
    label: `fuel ${v.registration} ${iso(w.startMs).slice(0, 10)}`,
    async fetch(ctx, meter) {
      const leaves: { w: Window; f: FuelConsumed | null; entry: LedgerEntry }[] = [];
      // A leaf books every request since the previous leaf: a split window's own request too.
      let booked = 0;
      const pull = async (win: Window): Promise<void> => {
        const f = await ctx.client.getFuelConsumed(v.registration, win.startMs, win.endMs, {
          meter,
          signal: ctx.signal,
        });
        const flag = await wentDown(ctx, f);
        if (flag !== null) {
          const halves = splitAtMidnight(win, ctx.zone);
          if (halves) {
            for (const h of halves) await pull(h);
            return;
          }
        }
        leaves.push({ w: win, f, entry: consumedEntry(ctx, v, win, f, flag, meter.requests - booked) });
        booked = meter.requests;
      };
      for (const piece of settledPieces(ctx, w)) await pull(piece);
      const rows = leaves.filter((l) => l.f).map((l) => consumedRow(ctx.account, v.vehicle_id, l.w, l.f!));
      return {
        ledger: leaves.map((l) => l.entry),
        deletes: [vehicleWindowRange('fuel_consumed', v.vehicle_id, w)],
        inserts: [{ table: 'fuel_consumed', rows }],
        rows: rows.length,
      };
    },
  };
}

/** Bulk POST /fuel/consumed: one ≤24 h window for up to 100 vehicles; a ledger row per vehicle. */
export function fuelConsumedBulkUnit(vehicles: VehicleRef[], w: Window): Unit {
  return {
    stream: 'fuel',
    ledgerStream: 'fuel_consumed',
    scope: vehicles.map((v) => v.vehicle_id).join(','),
    window: w,
    bucket: 'fuel_consumed_bulk',
    estRequests: 1,
    label: `fuel (bulk ${vehicles.length}) ${iso(w.startMs).slice(0, 13)}`,
    async fetch(ctx, meter) {
      const list = await ctx.client.getFuelConsumedBulk(
        vehicles.map((v) => v.registration),
        w.startMs,
        w.endMs,
        { meter, signal: ctx.signal },
      );
      const byReg = new Map(list.map((f) => [f.registration, f]));
      const per = await Promise.all(
        vehicles.map(async (v) => {
          const f = byReg.get(v.registration) ?? null;
          return { v, f, entry: consumedEntry(ctx, v, w, f, await wentDown(ctx, f), 0) };
        }),
      );
      if (per[0]) per[0].entry.requests = meter.requests;
      const rows = per.filter((p) => p.f).map((p) => consumedRow(ctx.account, p.v.vehicle_id, w, p.f!));
      return {
        ledger: per.map((p) => p.entry),
        deletes: per.map((p) => vehicleWindowRange('fuel_consumed', p.v.vehicle_id, w)),
        inserts: [{ table: 'fuel_consumed', rows }],
        rows: rows.length,
      };
    },
  };
}

/** GET /fuel/level/{registration}: the level estimate over a ≤31-day window. */
export function fuelLevelUnit(v: VehicleRef, w: Window, estRequests = 1): Unit {
  return {
    stream: 'fuel',
    ledgerStream: 'fuel_level',
    scope: String(v.vehicle_id),
    window: w,
    bucket: 'default',
    estRequests,
    label: `fuel level ${v.registration} ${iso(w.startMs).slice(0, 10)}`,
    async fetch(ctx, meter) {
      const pieces: { p: Window; f: FuelLevel | null; requests: number }[] = [];
      for (const p of settledPieces(ctx, w)) {
        const before = meter.requests;
        const f = await ctx.client.getFuelLevel(v.registration, p.startMs, p.endMs, {
          meter,
          signal: ctx.signal,
        });
        pieces.push({ p, f, requests: meter.requests - before });
      }
      const rows = pieces.flatMap(({ p, f }) =>
        f
          ? [
              {
                account: ctx.account,
                vehicle_id: v.vehicle_id,
                window_start: p.startMs,
                window_end: p.endMs,
                start_l: f.start.litres,
                start_at: f.start.ms,
                start_accurate: f.start.accurate,
                end_l: f.end.litres,
                end_at: f.end.ms,
                end_accurate: f.end.accurate,
                estimated_used_l: f.estimated_fuel_used_l,
                calibrated: f.calibrated,
              },
            ]
          : [],
      );
      return {
        ledger: pieces.map(({ p, f, requests }) => {
          const scope = String(v.vehicle_id);
          const s = f
            ? settledStatus(ctx, p, scope)
            : emptyStatus(ctx, p, scope, 'no fuel level data for the period');
          return {
            stream: 'fuel_level' as const,
            scope,
            startMs: p.startMs,
            endMs: p.endMs,
            status: s.status,
            reason: s.reason,
            rows: f ? 1 : 0,
            requests,
          };
        }),
        deletes: [vehicleWindowRange('fuel_level', v.vehicle_id, w)],
        inserts: [{ table: 'fuel_level', rows }],
        rows: rows.length,
      };
    },
  };
}

/** GET /fuel/fills/{registration} over a ≤31-day window; duplicates collapse on (vehicle, time). */
export function fuelFillsUnit(v: VehicleRef, w: Window): Unit {
  return {
    stream: 'fuel',
    ledgerStream: 'fuel_fills',
    scope: String(v.vehicle_id),
    window: w,
    bucket: 'default',
    estRequests: 1,
    label: `fuel fills ${v.registration} ${iso(w.startMs).slice(0, 10)}`,
    async fetch(ctx, meter) {
      const fills: FuelFill[] = await ctx.client.listFuelFills(v.registration, w.startMs, w.endMs, {
        meter,
        signal: ctx.signal,
      });
      const rows = fills.map((f) => fillRow(ctx.account, v.vehicle_id, f));
      // Fills are points in time: one answer covers the window, the ledger says which part has
      // settled.
      return pointWindow(ctx, {
        stream: 'fuel_fills',
        window: w,
        table: 'fuel_fills',
        at: 'fill_time',
        vehicleId: v.vehicle_id,
        key: FILL_KEY,
        rows,
        times: fills.map((f) => f.fill_ms),
        requests: meter.requests,
      });
    },
  };
}

const fillRow = (account: string, vehicleId: number, f: FuelFill) => ({
  account,
  vehicle_id: vehicleId,
  fill_time: f.fill_ms,
  amount_l: f.amount_l,
  odometer_m: f.odometer_m,
  location: f.location,
  accurate: f.accurate,
  extra_fields: f.extra_fields,
});

const FILL_KEY = ['account', 'vehicle_id', 'fill_time'] as const;
const ALL_FILLS = 'GET /fuel/fills';

/**
 * GET /fuel/fills (every vehicle) over one local day (≤ 24 h), for the level-sensor vehicles
 * `need` whose fills of the day are not stored yet: a ledger row and a replaced range per vehicle
 * of `need`. The fills of vehicles already stored for the day are left as they are; a fill of a
 * vehicle the plan did not expect fills from (no level sensor listed) is kept, merged by its key.
 */
export function fuelFillsDayUnit(
  need: readonly VehicleRef[],
  known: readonly PlannedVehicle[],
  w: Window,
  estRequests = 1,
): Unit {
  return {
    stream: 'fuel',
    ledgerStream: 'fuel_fills',
    scope: need.map((v) => v.vehicle_id).join(','),
    window: w,
    bucket: 'default',
    estRequests,
    label: `fuel fills (fleet, ${need.length} vehicles) ${iso(w.startMs).slice(0, 13)}`,
    async fetch(ctx, meter) {
      const fills = await allFillsOrEach(ctx, meter, need, w);
      const byReg = new Map(known.map((v) => [v.registration, v.vehicle_id]));
      const levelIds = new Set(known.filter((v) => v.fuel_level).map((v) => v.vehicle_id));
      const needIds = new Set(need.map((v) => v.vehicle_id));
      const kept: { id: number; f: FuelFill }[] = [];
      let unplaced = 0;
      for (const f of fills) {
        const id = f.vehicle_id ?? byReg.get(f.registration);
        if (id === undefined) unplaced++;
        else if (needIds.has(id) || !levelIds.has(id)) kept.push({ id, f });
      }
      if (unplaced)
        ctx.log.warn('fuel fills of vehicles not in the vehicle list left out', {
          window: iso(w.startMs),
          fills: unplaced,
        });
      const rows = kept.map(({ id, f }) => fillRow(ctx.account, id, f));
      // each vehicle's fill times once (a filter of every kept fill per vehicle was need × fills)
      const timesOf = new Map<number, number[]>();
      for (const { id, f } of kept) {
        const times = timesOf.get(id);
        if (times) times.push(f.fill_ms);
        else timesOf.set(id, [f.fill_ms]);
      }
      return {
        ledger: need.flatMap((v, i) =>
          pointLedger(
            ctx,
            'fuel_fills',
            String(v.vehicle_id),
            w,
            timesOf.get(v.vehicle_id) ?? [],
            i === 0 ? meter.requests : 0,
          ),
        ),
        deletes: need.map((v) => ({
          table: 'fuel_fills',
          eq: { vehicle_id: v.vehicle_id },
          at: 'fill_time',
          startMs: w.startMs,
          endMs: w.endMs,
        })),
        inserts: [{ table: 'fuel_fills', key: FILL_KEY, rows }],
        // An open tail of a month window pulled per vehicle before reaches into this day: dropped,
        // so "incomplete" is not said over days that are done.
        custom: (con) =>
          execute(con, 'sync/ledger_drop_open_overlap', [
            ctx.account,
            'fuel_fills',
            need.map((v) => v.vehicle_id).join(','),
            iso(w.startMs),
            iso(w.endMs),
          ]),
        rows: rows.length,
      };
    },
  };
}

/**
 * The day's fills from GET /fuel/fills; where the account may not read it or does not have it
 * (403, or 404: the gate records the refusal and sends it no more this run), the same day per
 * vehicle of `need`, so the fuel stream is not skipped for it. The next plan reads per vehicle.
 */
async function allFillsOrEach(
  ctx: StreamContext,
  meter: RequestMeter,
  need: readonly VehicleRef[],
  w: Window,
): Promise<FuelFill[]> {
  try {
    return await ctx.client.listAllFuelFills(w.startMs, w.endMs, { meter, signal: ctx.signal });
  } catch (e) {
    if (!isAccessRefusal(e)) throw e;
    const each: FuelFill[] = [];
    for (const v of need)
      for (const f of await ctx.client.listFuelFills(v.registration, w.startMs, w.endMs, {
        meter,
        signal: ctx.signal,
      }))
        each.push({ ...f, vehicle_id: f.vehicle_id ?? v.vehicle_id });
    return each;
  }
}

const requestsOf = (units: readonly Unit[]) => units.reduce((s, u) => s + u.estRequests, 0);

/**
 * One request of GET /fuel/fills over `w`, to learn whether an account that refused it answers
 * again (a subuser granted the module later): the gate records the answer, or the refusal, as it
 * does for any endpoint (sync/access.ts), and the next plan reads fleet-wide if it answered. Its
 * fills are not stored (the per-vehicle windows of the plan hold that day) and nothing it meets
 * fails a window: it writes no ledger row.
 */
function fuelFillsProbeUnit(w: Window): Unit {
  return {
    stream: 'fuel',
    ledgerStream: 'fuel_fills',
    scope: 'probe',
    window: w,
    bucket: 'default',
    estRequests: 1,
    label: `fuel fills (asks whether ${ALL_FILLS} answers again) ${iso(w.startMs).slice(0, 13)}`,
    async fetch(ctx, meter) {
      try {
        await ctx.client.listAllFuelFills(w.startMs, w.endMs, { meter, signal: ctx.signal });
      } catch (e) {
        // what stops the client stops the run; anything else leaves the probe for the next run
        if (isFleetsyncError(e, 'E_AUTH') || isFleetsyncError(e, 'E_API_DOWN')) throw e;
        if (!isAccessRefusal(e)) ctx.log.warn(`${ALL_FILLS} probe failed`, { error: describeError(e) });
      }
      return { ledger: [], deletes: [], inserts: [], rows: 0 };
    },
  };
}

/**
 * The fills of every level-sensor vehicle, month by month: per vehicle (a request per vehicle
 * whose month is not yet stored) or fleet-wide per day (a request, or its pages, per day some
 * vehicle lacks), whichever sends fewer requests. A long backfill of a small fleet reads per
 * vehicle (2 requests a month for 2 vehicles, not 30); a nightly run of a fleet reads the few
 * open days fleet-wide (4 requests, not one per vehicle).
 */
async function fillUnits(ctx: PlanContext): Promise<Unit[]> {
  const level = ctx.vehicles.filter((v) => v.fuel_level);
  if (level.length === 0) return [];
  const ledger = await ctx.ledger('fuel_fills');
  const days = ctx.grid('day');
  const out: Unit[] = [];
  const tally = { fleetDays: 0, vehicleWindows: 0, perVehicleOnly: 0 };
  /** The first day a refused fleet-wide read would have been the cheaper path. */
  let probeDay: Window | null = null;
  // An account that refused the fleet-wide endpoint (recorded by an earlier run) is read per vehicle.
  const fleetRefused = ctx.refused(ALL_FILLS);
  for (const m of ctx.grid('month')) {
    const perVehicle: Unit[] = [];
    for (const v of level)
      for (const w of await ctx.gaps('fuel_fills', [m], String(v.vehicle_id)))
        perVehicle.push(fuelFillsUnit(v, w));
    const fleet: Unit[] = [];
    for (const d of days.filter((x) => x.startMs >= m.startMs && x.endMs <= m.endMs)) {
      const need = level.filter((v) => !isCovered(d, ledger.get(String(v.vehicle_id))));
      if (need.length)
        fleet.push(fuelFillsDayUnit(need, ctx.vehicles, d, ctx.pages(ctx.rates.fillsPerDay, d)));
    }
    const fleetCheaper =
      ctx.fillsPath !== 'per_vehicle' && fleet.length > 0 && requestsOf(fleet) < requestsOf(perVehicle);
    const fleetWins = ctx.fillsPath === 'fleet_day' || (!fleetRefused && fleetCheaper);
    if (fleetRefused && fleetCheaper && !fleetWins) probeDay ??= fleet[0]!.window;
    out.push(...(fleetWins ? fleet : perVehicle));
    tally.perVehicleOnly += requestsOf(perVehicle);
    if (fleetWins) tally.fleetDays += fleet.length;
    else tally.vehicleWindows += perVehicle.length;
  }
  if (fleetRefused)
    ctx.note(
      `fuel fills: ${ALL_FILLS} is recorded refused for this account: read per vehicle` +
        (probeDay ? ` (+1 request asks whether it answers again)` : ''),
    );
  if (probeDay) out.push(fuelFillsProbeUnit(probeDay));
  ctx.note(
    `fuel fills of ${level.length} level-sensor vehicle(s): ${requestsOf(out)} request(s) on the default bucket — ` +
      `GET /fuel/fills fleet-wide for ${tally.fleetDays} day(s), GET /fuel/fills/{registration} for ` +
      `${tally.vehicleWindows} vehicle-month(s) (per vehicle only: ${tally.perVehicleOnly})`,
  );
  return out;
}

export const fuel = defineStream({
  name: 'fuel',
  ledgerStreams: ['fuel_consumed', 'fuel_level', 'fuel_fills'],
  grid: 'month',
  scope: 'vehicle',
  endpoints: [
    'GET /fuel/consumed/{registration}',
    'POST /fuel/consumed',
    'GET /fuel/level/{registration}',
    'GET /fuel/fills/{registration}',
    ALL_FILLS,
  ],
  // Refused, the fleet-wide fills are read per vehicle (allFillsOrEach): fuel is not skipped for it.
  fallbackEndpoints: [ALL_FILLS],
  buckets: ['default', 'fuel_consumed_bulk'],
  tables: ['fuel_consumed', 'fuel_level', 'fuel_fills'],
  startOrder: 4,
  needs: ['vehicles'],
  async plan(ctx) {
    const months = ctx.grid('month');
    const can = ctx.vehicles.filter((v) => v.fuel_canbus_consumed);
    const getUnits: Unit[] = [];
    for (const v of can)
      for (const w of await ctx.gaps('fuel_consumed', months, String(v.vehicle_id)))
        getUnits.push(fuelConsumedUnit(v, w, ctx.pieces(w)));
    const lc = await ctx.ledger('fuel_consumed');
    const postUnits: Unit[] = [];
    for (const w of ctx.grid('day')) {
      const need = can.filter((v) => !isCovered(w, lc.get(String(v.vehicle_id))));
      for (let i = 0; i < need.length; i += BULK_MAX_VEHICLES)
        postUnits.push(fuelConsumedBulkUnit(need.slice(i, i + BULK_MAX_VEHICLES), w));
    }
    const levelUnits: Unit[] = [];
    for (const v of ctx.vehicles.filter((x) => !x.fuel_canbus_consumed && x.fuel_level))
      for (const w of await ctx.gaps('fuel_level', months, String(v.vehicle_id)))
        levelUnits.push(fuelLevelUnit(v, w, ctx.pieces(w)));
    levelUnits.push(...(await fillUnits(ctx)));
    // The two counter paths store the same litres: take the one the limits finish sooner, given
    // everything else planned so far.
    const others = requestsByBucket([...ctx.planned, ...levelUnits]);
    const getMs = ctx.leastDurationMs(addRequests(others, requestsByBucket(getUnits)));
    const postMs = ctx.leastDurationMs(addRequests(others, requestsByBucket(postUnits)));
    const chosen = ctx.fuelPath ?? (postMs < getMs ? 'bulk_post' : 'per_vehicle_get');
    ctx.chooseFuelPath({ chosen, getMs, postMs });
    if (can.length)
      ctx.note(
        `fuel counter: ${chosen === 'bulk_post' ? `bulk POST /fuel/consumed (24 h, ${BULK_MAX_VEHICLES} vehicles, 10/min)` : 'per-vehicle GET /fuel/consumed (31 days)'} — ` +
          `GET path ≥ ${fmt(getMs)}, bulk path ≥ ${fmt(postMs)}`,
      );
    return [...levelUnits, ...(chosen === 'bulk_post' ? postUnits : getUnits)];
  },
});
