/**
 * Refuels for every vehicle with a level sensor (issue 25 item 7): CAN vehicles (counter and CAN
 * level) and analog-only ones, against the simulator's truth; fuel reconciliation filled wherever
 * both sides are known; the plan's fill requests (per vehicle-month, or fleet-wide per day where
 * that sends fewer); a database the earlier version synced (no fills for counter vehicles) gets
 * exactly those fills and nothing else; the pull holds to a lowered default bucket.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetClient } from '../../src/api/client.ts';
import type { SimVehicle } from '../../src/simulator/model.ts';
import { openDatabase } from '../../src/store/db.ts';
import { buildPlan, plannedVehicles } from '../../src/sync/planner.ts';
import { runSync, type SyncDeps } from '../../src/sync/run.ts';
import { STREAMS } from '../../src/sync/streams/index.ts';
import { dayRange, dayWindows, monthWindows, type Window } from '../../src/sync/windows.ts';
import { localMonth, localMonthBounds, parseWireTimestamp } from '../../src/time.ts';
import { ACCOUNT, queryDb, reportOn, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
const ms = (iso: unknown) => parseWireTimestamp(String(iso))!;
const hasLevel = (v: SimVehicle) => v.sensors.fuel_canbus_level || v.sensors.fuel_analog_level;
/** The truth's fills of a vehicle inside the fleet's history, as "time litres". */
const truthFills = (v: SimVehicle, from = h.fleet.startMs, to = h.fleet.endMs) =>
  h.fleet
    .fillsOf(v.vehicle_id)
    .filter((f) => f.at_ms >= from && f.at_ms < to)
    .map((f) => `${f.at_ms} ${f.litres.toFixed(2)}`);
const storedFills = async (dbPath: string | null, v: SimVehicle) => {
  const db = dbPath === null ? h.db : await openDatabase(dbPath);
  try {
    const rows = await queryDb(
      db,
      'SELECT fill_time, amount_l FROM fuel_fills WHERE account = $1 AND vehicle_id = $2 ORDER BY fill_time',
      [ACCOUNT, v.vehicle_id],
    );
    return rows.map((r) => `${(r.fill_time as Date).getTime()} ${Number(r.amount_l).toFixed(2)}`);
  } finally {
    if (dbPath !== null) db.close();
  }
};

/** Writes the harness database's log into its file, so that a copy of the file holds everything. */
const checkpoint = () => queryDb(h.db, 'CHECKPOINT');

/** The refuels rows of each vehicle are the truth's fills of the harness's history, in order. */
function expectTruthFills(x: Harness, rows: readonly { vehicle_id?: unknown; fill_time?: unknown }[]) {
  for (const v of x.fleet.vehicles) {
    const truth = x.fleet
      .fillsOf(v.vehicle_id)
      .filter((f) => f.at_ms >= x.fleet.startMs && f.at_ms < x.fleet.endMs)
      .map((f) => f.at_ms);
    expect(
      rows.filter((r) => r.vehicle_id === v.vehicle_id).map((r) => ms(r.fill_time)),
      v.registration,
    ).toEqual(truth);
  }
}

beforeAll(async () => {
  // 12 vehicles: CAN (counter + CAN level) in most slots, analog level in slots 5 and 9,
  // electric in slot 3, no fuel sensor in slot 8 (src/simulator/gen/vehicles.ts).
  h = await startHarness({ fleet: { seed: 11, vehicles: 12, days: 40, endDay: '2026-05-12' } });
  expect((await h.sync()).outcome).toBe('ok');
}, 180_000);
afterAll(() => h?.close());

const range = () => ({ from: h.firstDay, to: h.lastDay });

describe('refuels for every vehicle with a level sensor', () => {
  it('the fleet has counter vehicles with a level sensor, sensor-only vehicles and vehicles without one', () => {
    const vs = h.fleet.vehicles;
    expect(vs.filter((v) => v.sensors.fuel_canbus_consumed && hasLevel(v)).length).toBe(8);
    expect(vs.filter((v) => !v.sensors.fuel_canbus_consumed && hasLevel(v)).length).toBe(2);
    expect(vs.filter((v) => !hasLevel(v)).length).toBe(2);
  });

  it('refuels lists every fill of every level-sensor vehicle, counter or not, as the truth has it', async () => {
    const rows = await h.report('refuels', range());
    for (const v of h.fleet.vehicles) {
      const mine = rows
        .filter((r) => r.vehicle_id === v.vehicle_id)
        .map((r) => `${ms(r.fill_time)} ${Number(r.litres).toFixed(2)}`);
      const truth = truthFills(v);
      if (hasLevel(v)) expect(truth.length, v.registration).toBeGreaterThan(0);
      expect(mine, v.registration).toEqual(truth);
    }
  });

  it('fuel reconciliation: filled, used and the difference on every month of a level-sensor vehicle; filled blank without a sensor', async () => {
    const rec = await h.report('fuel_reconciliation', range());
    const fuel = await h.report('fuel', range());
    const zone = h.fleet.timezone;
    const months = [...new Set([localMonth(h.fleet.startMs, zone), localMonth(h.fleet.endMs - 1, zone)])];
    let both = 0;
    for (const v of h.fleet.vehicles)
      for (const m of months) {
        const r = rec.find((x) => x.vehicle_id === v.vehicle_id && x.period === m);
        if (!hasLevel(v)) {
          if (r) expect([r.filled_l, r.difference_l], v.registration).toEqual([null, null]);
          continue;
        }
        expect(r, `${v.registration} ${m}`).toBeDefined();
        const { startMs, endMs } = localMonthBounds(m, zone);
        // the month's fills inside the synced history (the generator's history starts mid-month)
        const truth = h.fleet
          .fillsOf(v.vehicle_id)
          .filter(
            (f) => f.at_ms >= Math.max(startMs, h.fleet.startMs) && f.at_ms < Math.min(endMs, h.fleet.endMs),
          );
        expect(r!.fills).toBe(truth.length);
        expect(Number(r!.filled_l)).toBeCloseTo(
          truth.reduce((s, f) => s + f.litres, 0),
          2,
        );
        const used = fuel.find((x) => x.vehicle_id === v.vehicle_id && x.period === m)!.fuel_used_l;
        expect(used, `${v.registration} ${m}`).not.toBeNull();
        expect(r!.used_l).toBe(used);
        expect(r!.difference_l).toBeCloseTo(Number(r!.filled_l) - Number(used), 2);
        both++;
      }
    expect(both).toBe(10 * months.length);
  });
});

/** The fill units of a plan and the requests they are planned to send. */
const fillRequests = (units: { ledgerStream: string; scope: string; estRequests: number }[]) => {
  const fills = units.filter((u) => u.ledgerStream === 'fuel_fills');
  return { total: fills.reduce((s, u) => s + u.estRequests, 0), units: fills };
};

async function planOn(dbPath: string, win: Window, fillsPath?: 'per_vehicle' | 'fleet_day') {
  const db = await openDatabase(dbPath);
  const con = await db.connect();
  try {
    return await buildPlan(con, {
      account: ACCOUNT,
      zone: h.fleet.timezone,
      range: win,
      streams: new Set(STREAMS),
      vehicles: await plannedVehicles(con, ACCOUNT),
      runId: 'plan',
      windowMs: 60_000,
      settledBeforeMs: h.now() - 72 * 3_600_000,
      ...(fillsPath ? { fillsPath } : {}),
    });
  } finally {
    con.closeSync();
    db.close();
  }
}

describe('the plan of the fills', () => {
  it('a database an earlier version synced (no fills of counter vehicles) gets exactly those, nothing else pulled again', async () => {
    const zone = h.fleet.timezone;
    const win = dayRange(h.firstDay, h.lastDay, zone);
    const counter = h.fleet.vehicles.filter((v) => v.sensors.fuel_canbus_consumed && hasLevel(v));
    // As the earlier version left it: the counter vehicles' fills never pulled, never in the ledger.
    const path = join(h.dir, 'old.duckdb');
    await checkpoint();
    copyFileSync(h.dbPath, path);
    const ids = counter.map((v) => v.vehicle_id);
    {
      const db = await openDatabase(path);
      try {
        for (const id of ids) {
          await queryDb(db, 'DELETE FROM fuel_fills WHERE account = $1 AND vehicle_id = $2', [ACCOUNT, id]);
          await queryDb(
            db,
            "DELETE FROM ledger WHERE account = $1 AND stream = 'fuel_fills' AND scope = $2",
            [ACCOUNT, String(id)],
          );
        }
      } finally {
        db.close();
      }
    }
    const intact = await planOn(h.dbPath, win);
    const old = await planOn(path, win);
    const key = (u: { ledgerStream: string; scope: string; window: Window }) =>
      `${u.ledgerStream} ${u.scope} ${u.window.startMs}`;
    // Everything else is planned as on the intact database (nothing more pulled again) ...
    expect(old.units.filter((u) => u.ledgerStream !== 'fuel_fills').map(key)).toEqual(
      intact.units.filter((u) => u.ledgerStream !== 'fuel_fills').map(key),
    );
    // ... and the fills of the counter vehicles, month by month the cheaper path: a request per
    // counter vehicle (8) or a request per day of the month (the history has ≥ 9 days in each).
    const months = monthWindows(win.startMs, win.endMs, zone);
    const days = dayWindows(win.startMs, win.endMs, zone);
    const expected = months
      .map((m) =>
        Math.min(counter.length, days.filter((d) => d.startMs >= m.startMs && d.endMs <= m.endMs).length),
      )
      .reduce((a, b) => a + b, 0);
    expect(intact.units.filter((u) => u.ledgerStream === 'fuel_fills')).toEqual([]);
    expect(fillRequests(old.units).total).toBe(expected);
    expect(old.summary.notes.join('\n')).toContain(
      `fuel fills of 10 level-sensor vehicle(s): ${expected} request(s)`,
    );

    // The run sends those requests, and otherwise what a run sends on a database that lacks
    // nothing (the control: a copy of the intact one); it stores the truth's fills.
    const control = join(h.dir, 'control.duckdb');
    copyFileSync(h.dbPath, control);
    const sentBy = async (file: string) => {
      h.sim.resetStats();
      const db = await openDatabase(file);
      try {
        const s = await runSync({ ...h.deps, db }, { trigger: 'cli', fromDay: h.firstDay, toDay: h.lastDay });
        expect(s.outcome).toBe('ok');
      } finally {
        db.close();
      }
      return h.sim.stats().endpoints;
    };
    const {
      'GET /fuel/fills': all = 0,
      'GET /fuel/fills/{registration}': one = 0,
      ...rest
    } = await sentBy(path);
    expect(all + one).toBe(expected);
    const {
      'GET /fuel/fills': a0,
      'GET /fuel/fills/{registration}': o0,
      ...restControl
    } = await sentBy(control);
    expect([a0, o0]).toEqual([undefined, undefined]);
    expect(rest).toEqual(restControl);
    for (const v of h.fleet.vehicles)
      expect(await storedFills(path, v), v.registration).toEqual(truthFills(v));
  }, 120_000);

  it('a nightly run reads the open days fleet-wide: a request a day, not one per vehicle', async () => {
    const zone = h.fleet.timezone;
    // The fleet's last 3 days not yet stored for any vehicle: 3 fleet-wide requests beat 10 per vehicle.
    const last = dayWindows(h.fleet.startMs, h.fleet.endMs, zone).slice(-3);
    const path = join(h.dir, 'nightly.duckdb');
    await checkpoint();
    copyFileSync(h.dbPath, path);
    {
      const db = await openDatabase(path);
      try {
        await queryDb(
          db,
          `DELETE FROM ledger WHERE account = $1 AND stream = 'fuel_fills' AND window_end > $2::TIMESTAMPTZ`,
          [ACCOUNT, new Date(last[0]!.startMs).toISOString()],
        );
      } finally {
        db.close();
      }
    }
    const win = { startMs: last[0]!.startMs, endMs: last.at(-1)!.endMs };
    const p = await planOn(path, win);
    const f = fillRequests(p.units);
    expect(f.total).toBe(3);
    expect(f.units.map((u) => u.scope.split(',').length)).toEqual([10, 10, 10]);
    // Forced per vehicle, the same days cost a request per level-sensor vehicle.
    expect(fillRequests((await planOn(path, win, 'per_vehicle')).units).total).toBe(10);
  });
});

describe('fleet-wide per day', () => {
  it("GET /fuel/fills per day stores every level-sensor vehicle's fills as the truth has them, a request a day", async () => {
    const path = join(h.dir, 'fleet-day.duckdb');
    const db = await openDatabase(path);
    h.sim.resetStats();
    try {
      const s = await runSync(
        { ...h.deps, db, fillsPath: 'fleet_day' },
        { trigger: 'cli', fromDay: h.firstDay, toDay: h.lastDay, streams: ['fuel'] },
      );
      expect(s.outcome).toBe('ok');
    } finally {
      db.close();
    }
    const sent = h.sim.stats().endpoints;
    const days = dayWindows(h.fleet.startMs, h.fleet.endMs, h.fleet.timezone).length;
    expect(sent['GET /fuel/fills']).toBe(days);
    expect(sent['GET /fuel/fills/{registration}'] ?? 0).toBe(0);
    for (const v of h.fleet.vehicles)
      expect(await storedFills(path, v), v.registration).toEqual(truthFills(v));
  }, 120_000);
});

describe('within the default bucket', () => {
  let g: Harness;
  const LIMIT = 12;
  beforeAll(async () => {
    // A simulator that grants only 12 requests a (1 s) window on the default bucket.
    g = await startHarness({
      fleet: { seed: 5, vehicles: 6, days: 20 },
      sim: { limits: { default: LIMIT } },
    });
  }, 60_000);
  afterAll(() => g?.close());

  it('the fills pull, told the lowered limit, draws no 429 and stores the truth', async () => {
    const client = createFleetClient({
      baseUrl: g.sim.baseUrl,
      username: 'demo',
      password: 'demo-main',
      timezone: g.fleet.timezone,
      windowMs: 1000,
      limits: { default: LIMIT },
      now: g.now,
    });
    const db = await openDatabase(join(g.dir, 'bucket.duckdb'));
    const deps: SyncDeps = { ...g.deps, db, client, limits: { default: LIMIT }, fillsPath: 'fleet_day' };
    try {
      g.sim.resetStats();
      const t0 = g.now();
      const s = await runSync(deps, {
        trigger: 'cli',
        fromDay: g.firstDay,
        toDay: g.lastDay,
        streams: ['fuel'],
      });
      const took = g.now() - t0;
      expect(s.outcome).toBe('ok');
      const stats = g.sim.stats();
      const days = dayWindows(g.fleet.startMs, g.fleet.endMs, g.fleet.timezone).length;
      expect(stats.endpoints['GET /fuel/fills']).toBe(days);
      // More requests than two windows allow, none refused: the client waited for its bucket.
      expect(stats.requests.default).toBeGreaterThan(2 * LIMIT);
      expect(stats.rateLimited.default).toBe(0);
      expect(took).toBeGreaterThanOrEqual((Math.ceil(stats.requests.default / LIMIT) - 1) * 1000);
      const rows = await reportOn(
        db,
        'refuels',
        { from: g.firstDay, to: g.lastDay },
        {
          account: ACCOUNT,
          zone: g.fleet.timezone,
          nowMs: g.now(),
        },
      );
      expectTruthFills(g, rows);
    } finally {
      db.close();
      await client.close();
    }
  }, 120_000);
});

describe('an account without GET /fuel/fills', () => {
  let g: Harness;
  beforeAll(async () => {
    g = await startHarness({
      fleet: { seed: 3, vehicles: 6, days: 12 },
      sim: { access: { missing: ['GET /fuel/fills'] } },
    });
  }, 60_000);
  afterAll(() => g?.close());

  it('the fleet-wide day falls back to per vehicle: fuel is not skipped, the fills are the truth; the next plans read per vehicle and ask the endpoint once a run until it answers', async () => {
    const level = g.fleet.vehicles.filter(hasLevel);
    const days = dayWindows(g.fleet.startMs, g.fleet.endMs, g.fleet.timezone);
    g.sim.resetStats();
    const s = await runSync(
      { ...g.deps, fillsPath: 'fleet_day' },
      { trigger: 'cli', fromDay: g.firstDay, toDay: g.lastDay, streams: ['fuel'] },
    );
    expect(s.outcome).toBe('ok');
    expect(s.skipped ?? []).toEqual([]);
    const sent = g.sim.stats().endpoints;
    // one probe of the missing endpoint, then each day per level-sensor vehicle
    expect(sent['GET /fuel/fills']).toBe(1);
    expect(sent['GET /fuel/fills/{registration}']).toBe(days.length * level.length);
    const rows = await g.report('refuels');
    expectTruthFills(g, rows);
    // The refusal is recorded as a fact about the account, skipping no stream (fuel reads per vehicle).
    const [access] = await queryDb(
      g.db,
      "SELECT state, streams FROM endpoint_access WHERE account = $1 AND endpoint = 'GET /fuel/fills'",
      [ACCOUNT],
    );
    expect(access).toEqual({ state: 'not_available', streams: '' });
    // The next plan of open days reads them per vehicle, though
    // fleet-wide would be fewer requests, and asks the fleet-wide endpoint once more.
    const last = days.slice(-3);
    const reopen = () =>
      queryDb(
        g.db,
        "DELETE FROM ledger WHERE account = $1 AND stream = 'fuel_fills' AND window_end > $2::TIMESTAMPTZ",
        [ACCOUNT, new Date(last[0]!.startMs).toISOString()],
      );
    await reopen();
    const planLast = async (con: Awaited<ReturnType<typeof g.db.connect>>) =>
      buildPlan(con, {
        account: ACCOUNT,
        zone: g.fleet.timezone,
        range: { startMs: last[0]!.startMs, endMs: last.at(-1)!.endMs },
        streams: new Set(STREAMS),
        vehicles: await plannedVehicles(con, ACCOUNT),
        runId: 'plan',
        windowMs: 60_000,
      });
    const con = await g.db.connect();
    try {
      const p = await planLast(con);
      const f = fillRequests(p.units);
      expect(f.units.filter((u) => u.scope === 'probe').map((u) => u.estRequests)).toEqual([1]);
      expect(f.total).toBe(level.length + 1);
      expect(f.units.every((u) => !u.scope.includes(','))).toBe(true);
      expect(p.summary.notes.join('\n')).toContain(
        'GET /fuel/fills is recorded refused for this account: read per vehicle (+1 request asks whether it answers again)',
      );
    } finally {
      con.closeSync();
    }
    // Still refused: the probe costs one request, fails nothing, stores the fills per vehicle.
    const fuelOnly = { trigger: 'cli' as const, fromDay: g.firstDay, toDay: g.lastDay, streams: ['fuel'] };
    g.sim.resetStats();
    const again = await runSync(g.deps, fuelOnly);
    expect(again.outcome).toBe('ok');
    expect(g.sim.stats().endpoints['GET /fuel/fills']).toBe(1);
    expectTruthFills(g, await g.report('refuels'));
    // The module granted: the probe's answer is recorded and the next plan reads fleet-wide. (The
    // run above stored the open days as one window per vehicle: back to day windows first.)
    await queryDb(g.db, "DELETE FROM ledger WHERE account = $1 AND stream = 'fuel_fills'", [ACCOUNT]);
    expect((await runSync({ ...g.deps, fillsPath: 'fleet_day' }, fuelOnly)).outcome).toBe('ok');
    g.sim.setAccess({});
    await reopen();
    g.sim.resetStats();
    const granted = await runSync(g.deps, fuelOnly);
    expect(granted.outcome).toBe('ok');
    expect(g.sim.stats().endpoints['GET /fuel/fills']).toBe(1);
    expect(granted.accessChanges).toEqual([
      expect.objectContaining({ endpoint: 'GET /fuel/fills', from: 'not_available', to: 'ok' }),
    ]);
    expectTruthFills(g, await g.report('refuels'));
    await reopen();
    const con2 = await g.db.connect();
    try {
      const p = await planLast(con2);
      const f = fillRequests(p.units);
      expect(f.units.some((u) => u.scope === 'probe')).toBe(false);
      expect(f.units.every((u) => u.scope.includes(',') || level.length === 1)).toBe(true);
      expect(f.total).toBe(last.length);
    } finally {
      con2.closeSync();
    }
  }, 180_000);
});

describe('nights after a first run', () => {
  let g: Harness;
  beforeAll(async () => {
    // The clock 5 days before the history ends: the first run's month windows end in open days.
    g = await startHarness({ fleet: { seed: 9, vehicles: 12, days: 40 }, nowOffsetMs: -5 * 86_400_000 });
  }, 60_000);
  afterAll(() => g?.close());

  it('the month tail left open per vehicle is not said incomplete over the days the nights pull fleet-wide', async () => {
    const incremental = { trigger: 'cli' as const, streams: ['fuel'] };
    expect((await runSync(g.deps, incremental)).outcome).toBe('ok');
    for (let night = 0; night < 4; night++) {
      g.advance(86_400_000);
      expect((await runSync(g.deps, incremental)).outcome).toBe('ok');
    }
    const rows = await queryDb(
      g.db,
      `SELECT scope, epoch_ms(window_start) AS s, epoch_ms(window_end) AS e, status
       FROM ledger WHERE account = $1 AND stream = 'fuel_fills' ORDER BY scope, window_start`,
      [ACCOUNT],
    );
    const settled = rows.filter((r) => r.status === 'done' || r.status === 'flagged');
    const open = rows.filter((r) => r.status === 'incomplete' || r.status === 'failed');
    // the nights pulled days fleet-wide beside the first run's month windows
    expect(settled.some((r) => Number(r.e) - Number(r.s) <= 25 * 3_600_000)).toBe(true);
    expect(open.length).toBeGreaterThan(0); // the last days are still open
    const overlapping = open.filter((o) =>
      settled.some((d) => d.scope === o.scope && Number(d.s) < Number(o.e) && Number(d.e) > Number(o.s)),
    );
    expect(overlapping).toEqual([]);
  }, 120_000);
});
