/**
 * A stream declared in one file, as a new stream would be: every vehicle's fuel fills from the
 * all-vehicle endpoint GET /fuel/fills (≤ 24 h windows, so a day grid), fleet-wide, into a table
 * of its own. Its schema is the one statement below; nothing in src/ names it. Registered by
 * passing `[...BUILTIN_STREAMS, allFills]` as the run's streams.
 */
import { pointLedger } from '../../src/sync/ledger.ts';
import { defineStream } from '../../src/sync/stream.ts';
import { iso } from '../../src/time.ts';
import type { Unit } from '../../src/sync/unit.ts';
import type { Window } from '../../src/sync/windows.ts';

export const ALL_FILLS_SCHEMA = `CREATE TABLE IF NOT EXISTS all_fills (
  account VARCHAR NOT NULL, vehicle_id BIGINT NOT NULL, fill_time TIMESTAMPTZ NOT NULL,
  registration VARCHAR, amount_l DOUBLE,
  PRIMARY KEY (account, vehicle_id, fill_time))`;

function allFillsUnit(w: Window): Unit {
  return {
    stream: 'all_fills',
    ledgerStream: 'all_fills',
    scope: '*',
    window: w,
    bucket: 'default',
    estRequests: 1,
    label: `all fills ${iso(w.startMs).slice(0, 13)}`,
    async fetch(ctx, meter) {
      const fills = await ctx.client.listAllFuelFills(w.startMs, w.endMs, { meter, signal: ctx.signal });
      const rows = fills.map((f) => ({
        account: ctx.account,
        vehicle_id: f.vehicle_id,
        fill_time: f.fill_ms,
        registration: f.registration,
        amount_l: f.amount_l,
      }));
      return {
        ledger: pointLedger(
          ctx,
          'all_fills',
          '*',
          w,
          fills.map((f) => f.fill_ms),
          meter.requests,
        ),
        deletes: [{ table: 'all_fills', eq: {}, at: 'fill_time', startMs: w.startMs, endMs: w.endMs }],
        inserts: [{ table: 'all_fills', key: ['account', 'vehicle_id', 'fill_time'], rows }],
        rows: rows.length,
      };
    },
  };
}

export const allFills = defineStream({
  name: 'all_fills',
  ledgerStreams: ['all_fills'],
  grid: 'day',
  scope: 'fleet',
  endpoints: ['GET /fuel/fills'],
  buckets: ['default'],
  tables: ['all_fills'],
  startOrder: 1.5, // after the toll visits, before the bookings
  needs: ['vehicles'],
  async plan(ctx) {
    return (await ctx.gaps('all_fills', ctx.grid('day'), '*')).map(allFillsUnit);
  },
});
