/**
 * Benchmark 2: what a careful user would write instead of fleetsync. Sequential requests (undici
 * `request`), a fixed sleep of window / 1000 after every request (60 s / 1000 = 60 ms on the real
 * service), retry after a 429 (wait `X-RateLimit-Retry-After-Seconds`), and one INSERT per row
 * through a prepared statement (no Appender; plain INSERT without a key, which favours the
 * baseline: INSERT OR REPLACE on a key measured ~4× slower here), one transaction per response. Same workload as the
 * sync: trips per month, odometer per vehicle-month, fuel per vehicle-month (CAN counter, or level
 * + fills), toll visits per local day, bookings per month (one month ahead), plus the vehicle list.
 * Rows go to simple tables of its own (key, vehicle, two times as text, one number).
 */
import { DuckDBInstance, type DuckDBPreparedStatement } from '@duckdb/node-api';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { dayWindows, monthWindows, type Window } from '../src/sync/windows.ts';
import { DAY_MS, formatLocal, localDayBounds } from '../src/time.ts';
import { peakRssMb } from './lib.ts';
import { simStats, type WorldArgs } from './world.ts';

type Json = Record<string, unknown>;

export interface BaselineResult {
  vehicles: number;
  days: number;
  wallMs: number;
  requests: number;
  retries: number;
  genuine429: number;
  rows: number;
  peakRssMb: number;
  httpMs: number;
  sleepMs: number;
  insertMs: number;
}

const STREAMS = ['trips', 'odometer', 'fuel', 'fills', 'visits', 'bookings'] as const;

export async function baselineChild(
  a: WorldArgs & { vehicles: number; days: number },
): Promise<BaselineResult> {
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-bench-base-'));
  const instance = await DuckDBInstance.create(join(dir, 'baseline.duckdb'));
  const con = await instance.connect();
  const dispatcher = new Agent({ connections: 1 });
  const auth = `Basic ${Buffer.from('demo:demo-main').toString('base64')}`;
  const pause = a.windowMs / (a.limits.default ?? 1000);
  const t = { httpMs: 0, sleepMs: 0, insertMs: 0, requests: 0, retries: 0, rows: 0 };
  try {
    for (const s of STREAMS)
      await con.run(`CREATE TABLE ${s} (k VARCHAR, vehicle_id BIGINT, t1 VARCHAR, t2 VARCHAR, x DOUBLE)`);
    const inserts = new Map<string, DuckDBPreparedStatement>();
    for (const s of STREAMS)
      inserts.set(s, await con.prepare(`INSERT INTO ${s} VALUES ($1, $2, $3, $4, $5)`));

    async function get(path: string, query: Record<string, string | number>): Promise<Json> {
      const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
      for (;;) {
        const t0 = performance.now();
        const res = await request(`${a.baseUrl}${path}?${qs}`, {
          headers: { authorization: auth },
          dispatcher,
        });
        const text = await res.body.text();
        t.httpMs += performance.now() - t0;
        t.requests++;
        const s0 = performance.now();
        await sleep(pause);
        t.sleepMs += performance.now() - s0;
        if (res.statusCode === 429) {
          t.retries++;
          const wait = Number(res.headers['x-ratelimit-retry-after-seconds'] ?? 1) * 1000;
          await sleep(Math.min(wait, a.windowMs));
          continue;
        }
        if (res.statusCode >= 500) {
          t.retries++;
          continue;
        }
        if (res.statusCode !== 200) throw new Error(`${path}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
        return JSON.parse(text) as Json;
      }
    }
    async function pages(path: string, query: Record<string, string | number>): Promise<Json[]> {
      const out: Json[] = [];
      for (let page = 1; ; page++) {
        const body = await get(path, { ...query, page, limit: 500 });
        out.push(...((body.data as Json[] | null) ?? []));
        const meta = body.meta as { last_page?: number } | undefined;
        if (!meta || page >= (meta.last_page ?? 1)) return out;
      }
    }
    async function store(stream: (typeof STREAMS)[number], rows: Json[], key: (r: Json) => string) {
      const ps = inserts.get(stream)!;
      const t0 = performance.now();
      await con.run('BEGIN');
      for (const r of rows) {
        ps.bind([
          key(r),
          Number(r.vehicle_id ?? 0),
          String(r.start_timestamp ?? r.enter_timestamp ?? r.fill_timestamp ?? r.start_ts ?? ''),
          String(r.end_timestamp ?? r.exit_timestamp ?? r.end_ts ?? ''),
          Number(r.trip_distance ?? r.distance ?? r.fuel_consumed ?? r.fill_amount_litres ?? 0),
        ]);
        await ps.run();
      }
      await con.run('COMMIT');
      t.insertMs += performance.now() - t0;
      t.rows += rows.length;
    }
    const bounds = (w: Window) => ({
      start_timestamp: formatLocal(w.startMs, a.timezone),
      end_timestamp: formatLocal(w.endMs - 1000, a.timezone),
    });

    const t0 = performance.now();
    const sim0 = await simStats(a.simUrl);
    const range = {
      startMs: localDayBounds(a.firstDay, a.timezone).startMs,
      endMs: localDayBounds(a.lastDay, a.timezone).endMs,
    };
    const months = monthWindows(range.startMs, range.endMs, a.timezone);
    const vehicles = await pages('/vehicles', {});
    for (const w of months) {
      const trips = await pages('/trips', bounds(w));
      await store('trips', trips, (r) => String(r.trip_id));
    }
    for (const v of vehicles) {
      const reg = encodeURIComponent(String(v.registration));
      const sensors = (v.sensors ?? {}) as Record<string, boolean>;
      for (const w of months) {
        const k = `${v.vehicle_id}/${w.startMs}`;
        const odo = (await get(`/vehicles/${reg}/odometer`, bounds(w))).data as Json | null;
        if (odo) await store('odometer', [{ ...odo, vehicle_id: v.vehicle_id }], () => k);
        if (sensors.fuel_canbus_consumed) {
          const f = (await get(`/fuel/consumed/${reg}`, bounds(w))).data as Json | null;
          if (f) await store('fuel', [{ ...f, vehicle_id: v.vehicle_id }], () => k);
        } else if (sensors.fuel_canbus_level || sensors.fuel_analog_level) {
          const f = (await get(`/fuel/level/${reg}`, bounds(w))).data as Json | null;
          if (f) await store('fuel', [{ ...f, vehicle_id: v.vehicle_id }], () => k);
          const fills = await pages(`/fuel/fills/${reg}`, bounds(w));
          await store('fills', fills, (r) => `${v.vehicle_id}/${String(r.fill_timestamp)}`);
        }
      }
    }
    for (const w of dayWindows(range.startMs, range.endMs, a.timezone)) {
      const b = bounds(w);
      const visits = await pages('/geofences/visits', {
        'filter[enter_timestamp]': b.start_timestamp,
        'filter[exit_timestamp]': b.end_timestamp,
        'filter[is_toll]': 'true',
      });
      await store('visits', visits, (r) => `${r.vehicle_id}/${r.geofence_id}/${r.enter_timestamp}`);
    }
    for (const w of monthWindows(range.startMs, range.endMs + 31 * DAY_MS, a.timezone)) {
      const b = bounds(w);
      const bookings = await pages('/carpool/bookings', {
        'filter[start_timestamp]': b.start_timestamp,
        'filter[end_timestamp]': b.end_timestamp,
      });
      await store('bookings', bookings, (r) => String(r.booking_id));
    }
    const wallMs = performance.now() - t0;
    const sim1 = await simStats(a.simUrl);
    return {
      vehicles: a.vehicles,
      days: a.days,
      wallMs,
      requests: t.requests,
      retries: t.retries,
      genuine429: sim1.rateLimited - sim0.rateLimited,
      rows: t.rows + vehicles.length,
      peakRssMb: peakRssMb(),
      httpMs: t.httpMs,
      sleepMs: t.sleepMs,
      insertMs: t.insertMs,
    };
  } finally {
    await dispatcher.close();
    con.closeSync();
    instance.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
}
