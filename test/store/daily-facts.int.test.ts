/**
 * The daily facts (issue 29): kept by the sync's commits, they equal the facts computed from the
 * raw rows through the models, row for row, and every report that reads them equals the same
 * report over the raw tables (useRawFacts puts the raw computation in the facts' place on a
 * connection). On the shared simulator sync: a whole history, late data pulled again at the end.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareModelConnection, useRawFacts } from '../../src/store/models.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport, type ReportScope } from '../../src/reports/run.ts';
import { openDatabase } from '../../src/store/db.ts';
import { runMain } from '../helpers/cli.ts';
import { ACCOUNT } from '../helpers/synced.ts';
import { loadHarnessPrices } from '../helpers/prices-file.ts';
import { startSharedSync, type SharedSync } from '../helpers/shared-sync.ts';

let s: SharedSync;
let scope: ReportScope;
beforeAll(async () => {
  s = await startSharedSync();
  scope = { account: ACCOUNT, zone: s.h.fleet.timezone, nowMs: s.h.now() };
}, 300_000);
afterAll(async () => {
  closeConnections();
  await s?.h.close();
});

/**
 * Two connections kept open, as serve keeps its own: one over the stored facts, one over the raw
 * rows (useRawFacts); the models are defined once on each, not per query (~50 ms of CPU each).
 * Closed before the database is (the tests that reopen it).
 */
const open: { stored?: DuckDBConnection; raw?: DuckDBConnection } = {};
async function connection(raw: boolean): Promise<DuckDBConnection> {
  const key = raw ? 'raw' : 'stored';
  let con = open[key];
  if (!con) {
    con = await s.h.db.connect();
    await (raw ? useRawFacts(con) : prepareModelConnection(con));
    open[key] = con;
  }
  return con;
}
function closeConnections() {
  for (const key of ['stored', 'raw'] as const) {
    open[key]?.closeSync();
    delete open[key];
  }
}

async function withCon<T>(fn: (con: DuckDBConnection) => Promise<T>, raw = false): Promise<T> {
  return fn(await connection(raw));
}

/** Every fact row of the account, stored or (raw) computed now, in one order. */
async function facts(raw: boolean) {
  return withCon(async (con) => {
    const r = await con.runAndReadAll(
      `SELECT stream, vehicle_id, strftime(day, '%Y-%m-%d') AS day, windows, left_out, distance_m, used_l,
         epoch_ms(last_window_end) AS last_window_end, trips, trip_distance_m, toll_passages,
         toll_no_tariff, toll_charged, toll_charged_rounded, after_hours_s, driving_s, idle_s,
         epoch_ms(first_ignition_on) AS first_ignition_on, epoch_ms(last_ignition_off) AS last_ignition_off
       FROM vehicle_day_facts($1, $2, DATE '1970-01-01', DATE '2999-12-31')
       ORDER BY stream, vehicle_id, day`,
      [ACCOUNT, scope.zone],
    );
    return r.getRowObjectsJS();
  }, raw);
}

/** Every trips' day fact per driver (trip_day_facts) of the account, stored or (raw) computed now. */
async function tripFacts(raw: boolean) {
  return withCon(async (con) => {
    const r = await con.runAndReadAll(
      `SELECT * EXCLUDE (day, last_end), strftime(day, '%Y-%m-%d') AS day, epoch_ms(last_end) AS last_end
       FROM trip_day_facts_in($1, $2, DATE '1970-01-01', DATE '2999-12-31')
       ORDER BY vehicle_id, day, driver_id NULLS FIRST`,
      [ACCOUNT, scope.zone],
    );
    return r.getRowObjectsJS();
  }, raw);
}

/** Every day's coverage row of the account, stored or (raw) computed from the ledger now. */
async function cov(raw: boolean) {
  return withCon(async (con) => {
    const r = await con.runAndReadAll(
      raw
        ? `SELECT stream, scope, strftime(day, '%Y-%m-%d') AS day, synced, pulled
           FROM ledger_day_coverage($1, $2, NULL, NULL, DATE '2000-01-01', DATE '2100-12-31')
           ORDER BY ALL`
        : `SELECT stream, scope, strftime(day, '%Y-%m-%d') AS day, synced, pulled
           FROM day_coverage WHERE account = $1 AND $2 IS NOT NULL ORDER BY ALL`,
      [ACCOUNT, scope.zone],
    );
    return r.getRowObjectsJS();
  }, true);
}

/**
 * How many rows of `table` (trip_day_facts or day_coverage) are stored after a row of a later day
 * (`grain` 'day'), or of a later month ('month'): 0 when the table is stored in that order.
 */
async function outOfOrder(table: string, grain: 'day' | 'month') {
  return withCon(async (con) => {
    const r = await con.runAndReadAll(
      `SELECT count(*)::INTEGER AS n FROM (
         SELECT date_trunc('${grain}', day) AS d, max(date_trunc('${grain}', day)) OVER (
           ORDER BY rowid ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before
         FROM ${table}) WHERE d < before`,
    );
    return Number(r.getRowObjectsJS()[0]!.n);
  });
}

describe('daily facts', () => {
  it('kept at commit equal the facts computed from the raw rows', async () => {
    expect(s.first.outcome).toBe('ok');
    const stored = await facts(false);
    const raw = await facts(true);
    expect(stored.length).toBeGreaterThan(0);
    expect(new Set(stored.map((r) => r.stream))).toEqual(
      new Set(['odometer', 'fuel_consumed', 'fuel_level', 'trips', 'visits', 'activity']),
    );
    expect(stored).toEqual(raw);
  });

  it("the trips' day facts per driver kept at commit equal those computed from the trips", async () => {
    const stored = await tripFacts(false);
    expect(stored).toEqual(await tripFacts(true));
    // what the scorecards and the logbook add up is there to compare: drivers and trips without
    // one, known event counts, each logbook class (trips without a usable reading: the hand
    // fixture of test/reports/logbook-tax-year.test.ts)
    const trips = stored.reduce((a, r) => a + Number(r.trips), 0);
    const [n] = await withCon(async (con) =>
      (
        await con.runAndReadAll('SELECT count(*)::INTEGER AS n FROM trips WHERE account = $1', [ACCOUNT])
      ).getRowObjectsJS(),
    );
    expect(trips).toBe(Number(n?.n));
    expect(stored.some((r) => r.driver_id === null)).toBe(true);
    expect(stored.some((r) => r.driver_id !== null && r.braking !== null)).toBe(true);
    for (const c of ['business_km', 'private_km', 'unclassified_km'])
      expect(
        stored.some((r) => r[c] !== null),
        c,
      ).toBe(true);
  });

  it('a later run that pulls windows again replaces their facts, never adds to them', async () => {
    const count = () =>
      withCon(async (con) => {
        const r = await con.runAndReadAll(
          `SELECT (SELECT count(*) FROM trips WHERE account = $1)::INTEGER AS trips,
             (SELECT sum(trips) FROM daily_facts WHERE account = $1 AND stream = 'trips')::INTEGER AS fact_trips`,
          [ACCOUNT],
        );
        const row = r.getRowObjectsJS()[0]!;
        return { trips: Number(row.trips), fact_trips: Number(row.fact_trips) };
      });
    const before = await count();
    expect(before.fact_trips).toBe(before.trips);
    // an incremental run a day later: the windows still open for late data are pulled again
    s.h.advance(86_400_000);
    const again = await s.h.sync({ fromDay: undefined, toDay: undefined });
    expect(again.outcome).toBe('ok');
    expect(again.streams.trips?.rows ?? 0, 'trips pulled again').toBeGreaterThan(0);
    expect(again.streams.odometer?.rows ?? 0, 'odometer windows pulled again').toBeGreaterThan(0);
    // the late trips it brings are counted once, and the trips pulled again not twice
    const after = await count();
    expect(after.trips).toBeGreaterThanOrEqual(before.trips);
    expect(after.fact_trips).toBe(after.trips);
    expect(await facts(false)).toEqual(await facts(true));
    expect(await tripFacts(false)).toEqual(await tripFacts(true));
  });

  it("the day's coverage kept at commit equals the coverage computed from the ledger", async () => {
    const stored = await cov(false);
    expect(stored.filter((r) => r.synced).length).toBeGreaterThan(0);
    expect(stored).toEqual(await cov(true));
  });
});

describe('toll charges in the daily facts', () => {
  it('storing a prices file computes them again: they equal the charges of the passages priced one by one', async () => {
    const before = await facts(false);
    const visits = before.filter((r) => r.stream === 'visits');
    expect(visits.length).toBeGreaterThan(0);
    // no prices file yet: every passage is without a tariff, nothing is charged
    expect(visits.every((r) => r.toll_no_tariff === r.toll_passages && r.toll_charged === null)).toBe(true);
    const untariffed = await loadHarnessPrices(s.h);
    expect(await facts(false)).toEqual(await facts(true));
    // the kpis tile (from the facts) equals the toll_charges report's passages (priced one by one
    // from the raw visits), summed here
    const whole = { from: s.h.firstDay, to: s.h.lastDay };
    const passages = await report('toll_charges', whole, false);
    const [k] = await report('kpis', whole, false);
    const priced = passages.filter((p) => p.charge !== null);
    expect(priced.length).toBeGreaterThan(0);
    expect(passages.length).toBeGreaterThan(priced.length);
    expect(
      passages.filter((p) => p.charge === null).every((p) => p.geofence_id === untariffed.geofence_id),
    ).toBe(true);
    expect(k?.toll_passages).toBe(passages.length);
    expect(k?.toll_no_tariff).toBe(passages.length - priced.length);
    // the tile is the charges of the passages with a tariff (each rounded to the cent)
    const charged = (rows: typeof passages) => rows.reduce((a, p) => a + Number(p.charge ?? 0), 0);
    expect(k?.toll_charges_known).toBeCloseTo(charged(priced), 2);
    // the costs report's months are whole local months: those of the passages of those months
    const [y, m] = s.h.lastDay.split('-').map(Number) as [number, number];
    const months = {
      from: `${s.h.firstDay.slice(0, 7)}-01`,
      to: new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10),
    };
    const costs = await report('costs', months, false);
    expect(costs.reduce((a, r) => a + Number(r.toll_charges_known ?? 0), 0)).toBeCloseTo(
      charged(await report('toll_charges', months, false)),
      2,
    );
  });
});

/**
 * The reports over the facts (kpis, trend, mileage, top_vehicles, and the toll passages and
 * charges of costs and cost_departments, after the prices file above) and those whose coverage
 * columns read the stored day's coverage (through queries/models/coverage.sql); each over the
 * whole history, kpis and trend also over the ranges that try their edges.
 */
const FACT_READERS = [
  'kpis',
  'trend',
  'mileage',
  'top_vehicles',
  'costs',
  'cost_departments',
  'utilisation',
  'utilisation_days',
];
const COVERAGE_READERS = [
  'carpool',
  'driver_scores',
  'drivers',
  'fuel',
  'fuel_efficiency_drivers',
  'fuel_reconciliation',
  'logbook_years',
  'coverage',
  'setup_health',
];

async function report(name: string, raw: Record<string, string>, rawFacts: boolean) {
  return withCon(async (con) => {
    const def = requireReport(name);
    return (await runReport(con, def, scope, parseReportParams(raw, def, scope))).rows;
  }, rawFacts);
}

describe('every report over the stored facts equals the same report over the raw tables', () => {
  const ranges = (name: string): Record<string, Record<string, string>> => {
    const whole = { from: s.h.firstDay, to: s.h.lastDay };
    if (name === 'kpis' || name === 'costs')
      // inside a month (distance and fuel over the range) and across month ends (the whole months)
      return {
        whole,
        midMonth: { from: '2026-03-10', to: '2026-03-20' },
        edge: { from: '2026-02-28', to: '2026-04-01' },
      };
    if (name.startsWith('utilisation'))
      // a range whose first day a trip of the day before runs into, and whose months are cut
      return { whole, edge: { from: '2026-02-28', to: '2026-04-01' } };
    if (name === 'trend')
      return { whole, weeks: { ...whole, grain: 'week' }, months: { ...whole, grain: 'month' } };
    return { whole };
  };
  for (const name of [...FACT_READERS, ...COVERAGE_READERS])
    it(name, async () => {
      for (const [label, raw] of Object.entries(ranges(name)))
        expect(await report(name, raw, false), `${name} ${label}`).toEqual(await report(name, raw, true));
    });
});

describe('fleetsync sync --rebuild-facts', () => {
  it('computes facts and coverage that went wrong again from the rows, and says so', async () => {
    const before = await report('kpis', { from: s.h.firstDay, to: s.h.lastDay }, false);
    const raw = await facts(true);
    const rawTrips = await tripFacts(true);
    const rows = await withCon(
      async (con) => (await con.runAndReadAll('SELECT count(*)::INTEGER FROM daily_facts')).getRows()[0]![0],
    );
    await withCon(async (con) => {
      await con.run(`DELETE FROM daily_facts WHERE stream = 'trips'`);
      await con.run(`UPDATE daily_facts SET distance_m = distance_m * 2 WHERE stream = 'odometer'`);
      await con.run(`DELETE FROM day_coverage WHERE stream = 'visits'`);
      await con.run(`UPDATE trip_day_facts SET trips = trips + 1`);
    });
    expect(await report('kpis', { from: s.h.firstDay, to: s.h.lastDay }, false)).not.toEqual(before);
    closeConnections();
    s.h.db.close(); // the command opens the file itself
    const env = { FLEETSYNC_DB: s.h.dbPath, FLEETSYNC_ACCOUNT: ACCOUNT };
    const wrong = await runMain(env, 'sync', '--rebuild-facts', '--account', 'nobody');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(`holds: ${ACCOUNT}`);
    expect((await runMain(env, 'sync', '--rebuild-facts', '--from', s.h.firstDay)).code).toBe(2);
    const ok = await runMain(env, 'sync', '--rebuild-facts', '--json');
    expect(ok.code, ok.stderr).toBe(0);
    const [done] = (
      JSON.parse(ok.stdout) as { rebuilt: { account: string; zone: string; fact_rows: number }[] }
    ).rebuilt;
    expect(done).toMatchObject({ account: ACCOUNT, zone: scope.zone, fact_rows: rows });
    s.h.db = await openDatabase(s.h.dbPath);
    expect(await facts(false)).toEqual(raw);
    expect(await tripFacts(false)).toEqual(rawTrips);
    expect(await report('kpis', { from: s.h.firstDay, to: s.h.lastDay }, false)).toEqual(before);
    // inserted month by month: stored in month order (migration 041)
    expect(await outOfOrder('trip_day_facts', 'month')).toBe(0);
    expect(await outOfOrder('day_coverage', 'month')).toBe(0);
  });
});

/** The database closed and opened again, as an upgrade finds it (pending migrations applied). */
async function reopen() {
  closeConnections();
  s.h.db.close();
  s.h.db = await openDatabase(s.h.dbPath);
}

describe('the upgrade to migration 090', () => {
  it("computes the toll charges of an existing database's stored passages", async () => {
    const raw = await facts(true);
    expect(raw.some((r) => r.stream === 'visits' && r.toll_charged !== null)).toBe(true);
    // a database as it was before 090: no charge columns, the migration not recorded
    await withCon(async (con) => {
      for (const c of ['toll_no_tariff', 'toll_charged', 'toll_charged_rounded'])
        await con.run(`ALTER TABLE daily_facts DROP COLUMN ${c}`);
      await con.run(`DELETE FROM schema_migrations WHERE name = '090_toll_charge_facts.sql'`);
    });
    await reopen();
    expect(await facts(false)).toEqual(raw);
  });
});

describe('the upgrade to migrations 093 and 094', () => {
  it("computes the activity and the trips' after-hours of an existing database's stored rows", async () => {
    const raw = await facts(true);
    expect(raw.some((r) => r.stream === 'activity' && r.driving_s !== null)).toBe(true);
    expect(raw.some((r) => r.stream === 'trips' && Number(r.after_hours_s) > 0)).toBe(true);
    // a database as it was before 093: no activity rows, no after-hours, the migrations not recorded
    await withCon(async (con) => {
      await con.run(
        `DELETE FROM daily_facts WHERE stream = 'activity' OR (stream = 'trips' AND trips IS NULL)`,
      );
      for (const c of ['after_hours_s', 'driving_s', 'idle_s', 'first_ignition_on', 'last_ignition_off'])
        await con.run(`ALTER TABLE daily_facts DROP COLUMN ${c}`);
      await con.run(
        `DELETE FROM schema_migrations WHERE name IN ('093_trip_after_hours_facts.sql', '094_activity_facts.sql')`,
      );
    });
    await reopen();
    expect(await facts(false)).toEqual(raw);
  });
});

describe('the upgrade to migration 054', () => {
  it("computes the trips' day facts per driver of an existing database's stored trips", async () => {
    const raw = await tripFacts(true);
    expect(raw.length).toBeGreaterThan(0);
    // a database as it was before 054: no table, the migration not recorded
    await withCon(async (con) => {
      await con.run('DROP TABLE trip_day_facts');
      await con.run(`DELETE FROM schema_migrations WHERE name = '054_trip_day_facts.sql'`);
    });
    await reopen();
    expect(await tripFacts(false)).toEqual(raw);
  });
});

describe('the upgrade to migration 081', () => {
  it("computes again the trips' facts of a day a stored trip starts on before the synced days", async () => {
    const raw = await facts(true);
    const rawTrips = await tripFacts(true);
    // a database synced before 081: some trips' facts missing (as the day before a synced stretch
    // was), the migration not recorded
    await withCon(async (con) => {
      await con.run(
        `DELETE FROM daily_facts WHERE stream = 'trips' AND day = (SELECT min(day) FROM daily_facts)`,
      );
      await con.run(`DELETE FROM trip_day_facts WHERE day = (SELECT min(day) FROM trip_day_facts)`);
      await con.run(`DELETE FROM schema_migrations WHERE name = '081_trip_facts_first_day.sql'`);
    });
    expect(await tripFacts(false)).not.toEqual(rawTrips);
    await reopen();
    expect(await facts(false)).toEqual(raw);
    expect(await tripFacts(false)).toEqual(rawTrips);
  });
});

describe('the upgrade to migration 041', () => {
  it("stores the trips' day facts and the day's coverage in day order, the same rows", async () => {
    const rawTrips = await tripFacts(true);
    const rawCov = await cov(true);
    // a database as it was before 041: both tables in no day order, the migration not recorded
    await withCon(async (con) => {
      for (const t of ['trip_day_facts', 'day_coverage']) {
        await con.run(`CREATE TEMP TABLE shuffled AS SELECT * FROM ${t} ORDER BY hash(${t}::VARCHAR)`);
        await con.run(`DELETE FROM ${t}`);
        await con.run(`INSERT INTO ${t} SELECT * FROM shuffled`);
        await con.run('DROP TABLE shuffled');
      }
      await con.run(`DELETE FROM schema_migrations WHERE name = '041_facts_in_day_order.sql'`);
    });
    expect(await outOfOrder('trip_day_facts', 'day')).toBeGreaterThan(0);
    expect(await outOfOrder('day_coverage', 'day')).toBeGreaterThan(0);
    await reopen();
    expect(await outOfOrder('trip_day_facts', 'day')).toBe(0);
    expect(await outOfOrder('day_coverage', 'day')).toBe(0);
    expect(await tripFacts(false)).toEqual(rawTrips);
    expect(await cov(false)).toEqual(rawCov);
  });
});
