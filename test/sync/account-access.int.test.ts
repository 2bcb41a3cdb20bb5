/**
 * Endpoints the account may not read or does not have (issue 23, items 3 and 6), through the
 * `sync` command against the simulator over HTTP: a restricted subuser (part of the fleet, 403 on
 * the main-account-only reads) syncs exactly its part with exit 0 on two runs in a row and one
 * probe per refused endpoint per run; a module the account lacks (404 on GET /vehicles/activity)
 * costs one request per night, flat, with one alert; when it comes back the stream resumes and an
 * alert says so.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN_ACCOUNT_ONLY_READS } from '../../src/simulator/server.ts';
import { reportMeta } from '../../src/reports/run.ts';
import { openDatabase } from '../../src/store/db.ts';
import { addDays } from '../../src/time.ts';
import { runMain } from '../helpers/cli.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/receivers.ts';
import { ACCOUNT, queryDb, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
let hook: WebhookReceiver;
let visible: number[];

beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 6, days: 12 } });
  hook = await startWebhookReceiver();
  visible = h.fleet.vehicles.slice(0, 3).map((v) => v.vehicle_id);
}, 60_000);
afterAll(async () => {
  await hook?.close();
  await h?.close();
});

const env = (db: string, password: string) => ({
  FLEET_BASE_URL: h.sim.baseUrl,
  FLEET_USERNAME: 'demo',
  FLEET_PASSWORD: password,
  FLEET_TIMEZONE: h.fleet.timezone,
  FLEETSYNC_ACCOUNT: ACCOUNT,
  FLEETSYNC_DB: join(h.dir, db),
  FLEETSYNC_RATE_WINDOW_MS: '1000',
  FLEETSYNC_ALERT_WEBHOOK: `${hook.url}/hooks`,
});

/** Runs the CLI and returns its output with the simulator's requests per endpoint it cost. */
async function counted(e: Record<string, string>, ...argv: string[]) {
  const before = h.sim.stats().endpoints;
  const out = await runMain(e, ...argv);
  const after = h.sim.stats().endpoints;
  const cost = (endpoint: string) => (after[endpoint] ?? 0) - (before[endpoint] ?? 0);
  const total = () => Object.keys(after).reduce((n, endpoint) => n + cost(endpoint), 0);
  return { ...out, cost, total };
}

async function inDb(file: string, sql: string, params: (string | number)[] = []) {
  const db = await openDatabase(join(h.dir, file));
  try {
    return await queryDb(db, sql, params);
  } finally {
    db.close();
  }
}

describe('a restricted subuser', () => {
  it('syncs exactly its part of the fleet, exit 0 twice, one probe per refused endpoint per run', async () => {
    h.sim.setAccess({ subuser: { vehicleIds: visible, forbidden: MAIN_ACCOUNT_ONLY_READS } });
    const e = env('sub.duckdb', 'demo-sub');
    for (const run of [1, 2]) {
      const r = await counted(e, 'sync', '--from', h.firstDay, '--to', h.lastDay);
      expect(r.code, `run ${run}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(/: OK in /);
      expect(r.stdout).toMatch(/drivers: GET \/drivers is not permitted for these credentials/);
      expect(r.stdout).toMatch(/carpool: GET \/carpool\/vehicles is not permitted for these credentials/);
      expect(r.stdout + r.stderr).not.toMatch(/\.:/); // the API's sentence, then ours: no ".:"
      expect(r.stderr).not.toMatch(/FLEET_USERNAME\/FLEET_PASSWORD/);
      expect([r.cost('GET /drivers'), r.cost('GET /carpool/vehicles')], `run ${run}`).toEqual([1, 1]);
      // The run's request count is every request the simulator answered for it.
      expect(Number(/ — (\d+) requests,/.exec(r.stdout)?.[1]), `run ${run}`).toBe(r.total());
    }
    expect(hook.posts.map((p) => p.body.text)).toEqual([
      expect.stringMatching(/^fleetsync: GET \/carpool\/vehicles is not permitted for these credentials/),
      expect.stringMatching(/^fleetsync: GET \/drivers is not permitted for these credentials/),
    ]);

    const vehicles = await inDb('sub.duckdb', 'SELECT vehicle_id FROM vehicles ORDER BY vehicle_id');
    expect(vehicles.map((v) => Number(v.vehicle_id))).toEqual([...visible].sort((a, b) => a - b));
    // Its trips, exactly: the truth's trips of its vehicles, none of another vehicle.
    const truth = h.fleet.truth
      .trips(h.fleet.startMs, h.fleet.endMs)
      .filter((t) => visible.includes(t.vehicle_id))
      .map((t) => t.trip_id)
      .sort();
    const trips = await inDb('sub.duckdb', 'SELECT trip_id FROM trips ORDER BY trip_id');
    expect(trips.map((t) => String(t.trip_id))).toEqual(truth);
    // Its distance: every clean odometer window to the metre of what its vehicle really drove.
    const windows = await inDb(
      'sub.duckdb',
      'SELECT vehicle_id, window_start, window_end, distance_m FROM odometer_windows WHERE NOT odometer_reset AND NOT terminal_has_changed',
    );
    expect(new Set(windows.map((w) => Number(w.vehicle_id)))).toEqual(new Set(visible));
    for (const w of windows) {
      const [from, to] = [(w.window_start as Date).getTime(), (w.window_end as Date).getTime()];
      expect(Number(w.distance_m)).toBeCloseTo(h.fleet.truth.distanceM(Number(w.vehicle_id), from, to), -1);
    }
    // GET /carpool/drivers answers though GET /carpool/vehicles is refused: its list is stored whole.
    const carpoolDrivers = await inDb(
      'sub.duckdb',
      'SELECT driver_id FROM carpool_drivers ORDER BY driver_id',
    );
    expect(carpoolDrivers.map((d) => String(d.driver_id))).toEqual(
      h.fleet.drivers
        .filter((d) => !d.deactivated)
        .map((d) => d.driver_id)
        .sort(),
    );
    expect(await inDb('sub.duckdb', 'SELECT count(*)::INTEGER AS n FROM carpool_vehicles')).toEqual([
      { n: 0 },
    ]);
    const status = await runMain(e, 'status');
    expect(status.code, status.stdout).toBe(0);
    expect(status.stdout).toMatch(/endpoints not permitted or not available/);
    expect(status.stdout).toMatch(/GET \/drivers +not permitted for these credentials/);
    expect(status.stdout).toMatch(/GET \/carpool\/vehicles +not permitted for these credentials .* carpool/);

    const access = await inDb('sub.duckdb', 'SELECT endpoint, state FROM endpoint_access WHERE state <> $1', [
      'ok',
    ]);
    expect(access.map((a) => [a.endpoint, a.state])).toEqual([
      ['GET /carpool/vehicles', 'not_permitted'],
      ['GET /drivers', 'not_permitted'],
    ]);
  }, 180_000);

  it('a database first synced with the main account: the vehicles it no longer lists are not asked for', async () => {
    h.sim.setAccess({});
    const main = await runMain(env('switch.duckdb', 'demo-main'), 'sync', '--streams', 'odometer');
    expect(main.code, main.stderr).toBe(0);
    h.sim.setAccess({ subuser: { vehicleIds: visible } });
    const from = addDays(h.lastDay, -5);
    for (const run of [1, 2]) {
      const sub = await runMain(
        env('switch.duckdb', 'demo-sub'),
        'sync',
        '--streams',
        'odometer',
        '--from',
        from,
      );
      expect(sub.code, `run ${run}: ${sub.stderr}`).toBe(0);
      expect(sub.stdout).not.toMatch(/failures:/);
    }
  }, 120_000);
});

describe('a module the account does not have', () => {
  it('costs one request per night, flat, alerts once; when it comes back the stream resumes and an alert says so', async () => {
    h.sim.setAccess({ missing: ['GET /vehicles/activity'] });
    hook.posts.length = 0;
    const e = env('module.duckdb', 'demo-main');
    const days = [0, 1, 2, 3].map((i) => addDays(h.firstDay, 2 + i * 2));
    const costs: number[] = [];
    for (const day of days) {
      const r = await counted(
        e,
        'sync',
        '--streams',
        'activity,trips',
        '--from',
        day,
        '--to',
        addDays(day, 1),
      );
      expect(r.code, `${day}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(/activity: GET \/vehicles\/activity is not available on this account/);
      costs.push(r.cost('GET /vehicles/activity'));
    }
    expect(costs).toEqual([1, 1, 1, 1]);
    expect(hook.posts.map((p) => p.body.text)).toEqual([
      expect.stringMatching(
        /^fleetsync: GET \/vehicles\/activity is not available on this account for account test/,
      ),
    ]);

    const plan = await runMain(e, 'sync', '--plan', '--streams', 'activity');
    expect(plan.stdout).toMatch(
      /note: GET \/vehicles\/activity is not available on this account \(since \d{4}-\d\d-\d\d\): the run asks it once and skips activity/,
    );
    // It plans what a run sends for it: the one probe (costs above), not a request per window.
    expect(Number(/^activity +(\d+)$/m.exec(plan.stdout)?.[1]), plan.stdout).toBe(1);

    h.sim.setAccess({});
    const back = await counted(
      e,
      'sync',
      '--streams',
      'activity',
      '--from',
      days[0]!,
      '--to',
      addDays(days[3]!, 1),
    );
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).not.toMatch(/skipped/);
    expect(back.cost('GET /vehicles/activity')).toBeGreaterThanOrEqual(8);
    const done = await inDb(
      'module.duckdb',
      "SELECT count(*) AS n FROM ledger WHERE stream = 'activity' AND status = 'done'",
    );
    expect(Number(done[0]!.n)).toBe(8);
    const rows = await inDb('module.duckdb', 'SELECT count(DISTINCT vehicle_id) AS n FROM vehicle_activity');
    expect(Number(rows[0]!.n)).toBeGreaterThan(0);
    expect(hook.posts.map((p) => p.body.text).slice(1)).toEqual([
      expect.stringMatching(
        /^fleetsync: available again: GET \/vehicles\/activity answers for account test; the streams that need it resume \(activity\)/,
      ),
    ]);
  }, 180_000);
});

describe('complete through', () => {
  it('moves on when a stream is skipped because the account lost its endpoint', async () => {
    const through = async () => {
      const con = await h.db.connect();
      try {
        return (await reportMeta(con, { account: ACCOUNT, zone: h.fleet.timezone, nowMs: h.now() }))
          .complete_through_day;
      } finally {
        con.closeSync();
      }
    };
    h.sim.setAccess({});
    const first = addDays(h.firstDay, 1);
    const streams = ['odometer', 'activity'];
    const a = await h.sync({ streams, fromDay: first, toDay: addDays(first, 2) });
    expect(a.outcome).toBe('ok');
    expect(await through()).toBe(addDays(first, 2));

    h.sim.setAccess({ missing: ['GET /vehicles/activity'] });
    const b = await h.sync({ streams, fromDay: addDays(first, 3), toDay: addDays(first, 5) });
    expect(b.outcome).toBe('ok');
    expect(b.skipped?.map((s) => s.stream)).toEqual(['activity']);
    expect(await through()).toBe(addDays(first, 5));
  }, 120_000);
});
