/**
 * Odometer windows per vehicle, aligned to local months. A window the model layer flags
 * (rules.ts: odometer_reset or terminal_has_changed) is split at local midnights (halving) until
 * each flagged window holds at most one local day, so the distance left out of mileage stays
 * small; it is stored flagged with its reason code. A window whose last event is well before its
 * end is incomplete and pulled again on later runs.
 */
import type { OdometerWindow } from '../../api/types.ts';
import { emptyStatus, settledPieces, settledStatus, type LedgerEntry } from '../ledger.ts';
import { defineStream } from '../stream.ts';
import { iso } from '../../time.ts';
import { vehicleWindowRange, type StreamContext, type Unit, type VehicleRef } from '../unit.ts';
import { splitAtMidnight, type Window } from '../windows.ts';

interface Leaf {
  w: Window;
  data: OdometerWindow | null;
  entry: LedgerEntry;
}

/** A leaf's ledger entry; `flag` is the reason code the model layer gives the answer (rules.ts). */
function classify(
  ctx: StreamContext,
  v: VehicleRef,
  w: Window,
  o: OdometerWindow | null,
  flag: string | null,
  requests: number,
): LedgerEntry {
  const base = {
    stream: 'odometer' as const,
    scope: String(v.vehicle_id),
    startMs: w.startMs,
    endMs: w.endMs,
    requests,
  };
  if (!o) return { ...base, ...emptyStatus(ctx, w, base.scope, 'no odometer data for the period'), rows: 0 };
  if (flag !== null)
    return { ...base, status: 'flagged', rows: 1, reason: flag, lastEventMs: o.last_event_ms };
  // Only the look-back: the vehicle's own horizon is this answer's last event (below).
  const settled = settledStatus(ctx, w);
  if (settled.status !== 'done')
    return { ...base, status: settled.status, rows: 1, reason: settled.reason, lastEventMs: o.last_event_ms };
  const expected = Math.min(w.endMs, ctx.now());
  const lag = o.last_event_ms === null ? Infinity : expected - o.last_event_ms;
  if (lag > ctx.odometerLagMs) {
    const why =
      o.last_event_ms === null
        ? 'no last event time'
        : `last event ${Math.round(lag / 3_600_000)} h before the window end`;
    if (ctx.now() - w.endMs < ctx.maxLateMs)
      return { ...base, status: 'incomplete', rows: 1, lastEventMs: o.last_event_ms, reason: why };
    return {
      ...base,
      status: 'flagged',
      rows: 1,
      lastEventMs: o.last_event_ms,
      reason: `accepted incomplete: after the maximum lateness of ${Math.round(ctx.maxLateMs / 86_400_000)} days, ${why}`,
    };
  }
  return { ...base, status: 'done', rows: 1, lastEventMs: o.last_event_ms };
}

export function odometerUnit(v: VehicleRef, w: Window, estRequests = 1): Unit {
  return {
    stream: 'odometer',
    ledgerStream: 'odometer',
    scope: String(v.vehicle_id),
    window: w,
    bucket: 'default',
    estRequests,
    label: `odometer ${v.registration} ${iso(w.startMs).slice(0, 10)}`,
    async fetch(ctx, meter) {
      const leaves: Leaf[] = [];
      // A leaf books every request since the previous leaf: a split window's own request too.
      let booked = 0;
      const pull = async (win: Window): Promise<void> => {
        const o = await ctx.client.getOdometer(v.registration, win.startMs, win.endMs, {
          meter,
          signal: ctx.signal,
        });
        const flag = o ? await ctx.rules.odometerFlag(o) : null;
        if (flag !== null) {
          const halves = splitAtMidnight(win, ctx.zone);
          if (halves) {
            for (const h of halves) await pull(h);
            return;
          }
        }
        leaves.push({ w: win, data: o, entry: classify(ctx, v, win, o, flag, meter.requests - booked) });
        booked = meter.requests;
      };
      for (const piece of settledPieces(ctx, w)) await pull(piece);
      const rows = leaves
        .filter((l) => l.data)
        .map(({ w: lw, data: o }) => ({
          account: ctx.account,
          vehicle_id: v.vehicle_id,
          window_start: lw.startMs,
          window_end: lw.endMs,
          start_odometer_m: o!.start_odometer_m,
          end_odometer_m: o!.end_odometer_m,
          distance_m: o!.distance_m,
          current_odometer_m: o!.current_odometer_m,
          last_event_at: o!.last_event_ms,
          odometer_reset: o!.odometer_reset,
          terminal_has_changed: o!.terminal_has_changed,
        }));
      return {
        ledger: leaves.map((l) => l.entry),
        deletes: [vehicleWindowRange('odometer_windows', v.vehicle_id, w)],
        inserts: [{ table: 'odometer_windows', rows }],
        rows: rows.length,
      };
    },
  };
}

export const odometer = defineStream({
  name: 'odometer',
  ledgerStreams: ['odometer'],
  grid: 'month',
  scope: 'vehicle',
  endpoints: ['GET /vehicles/{registration}/odometer'],
  buckets: ['default'],
  tables: ['odometer_windows'],
  startOrder: 3,
  needs: ['vehicles'],
  async plan(ctx) {
    const months = ctx.grid('month');
    const units: Unit[] = [];
    for (const v of ctx.vehicles)
      for (const w of await ctx.gaps('odometer', months, String(v.vehicle_id)))
        units.push(odometerUnit(v, w, ctx.pieces(w)));
    return units;
  },
});
