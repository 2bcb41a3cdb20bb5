/**
 * Pages that do not add up (issue 23), through a real sync over HTTP: for each fault the
 * simulator can put on a page of the trips list (short, empty before the last, a repeated record,
 * a page shifted late or early, a total that changed between pages), no trips window is stored
 * `done` without every trip the ground truth has in it, the run is partial with the window failed
 * `E_INCOMPLETE`, and the next run (the API healthy again) pulls it and stores exactly the truth.
 * A window an earlier version accepted short (announced > kept in the ledger) is pulled again.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLandmarks } from '../../src/simulator/generate.ts';
import type { PageFaultKind } from '../../src/simulator/page-faults.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { buildStatus, formatStatus } from '../../src/status/report.ts';
import { planSync, runSync } from '../../src/sync/run.ts';
import { ACCOUNT, queryDb, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
/** Trips a page: the fleet's months hold several pages of trips. */
const PAGE = 25;

beforeAll(async () => {
  // six vehicles: the sixth has a fill the API lists twice
  h = await startHarness({ fleet: { vehicles: 6, days: 35 }, instantWaits: true });
}, 60_000);
afterAll(() => h?.close());

const sync = (db: Database) =>
  runSync({ ...h.deps, db }, { trigger: 'cli', fromDay: h.firstDay, toDay: h.lastDay, streams: ['trips'] });

const ms = (d: unknown) => (d as Date).getTime();

/** The trip ids the truth has starting in [fromMs, toMs). */
const truthIds = (fromMs: number, toMs: number) =>
  h.fleet.truth
    .trips(fromMs, toMs)
    .filter((t) => t.start_ms >= fromMs && t.start_ms < toMs)
    .map((t) => t.trip_id)
    .sort();

async function storedIds(db: Database) {
  return (await queryDb(db, 'SELECT trip_id FROM trips WHERE account = $1 ORDER BY trip_id', [ACCOUNT])).map(
    (r) => String(r.trip_id),
  );
}

async function statusOf(db: Database) {
  const con = await db.connect();
  try {
    return await buildStatus(con, { database: db.path, zone: h.fleet.timezone, runs: 5, nowMs: h.now() });
  } finally {
    con.closeSync();
  }
}

async function tripsLedger(db: Database) {
  return queryDb(
    db,
    `SELECT window_start, window_end, status, reason, announced, kept, duplicates
     FROM ledger WHERE account = $1 AND stream = 'trips' ORDER BY window_start`,
    [ACCOUNT],
  );
}

/** Every `done` trips window holds every trip the truth starts in it. */
async function noDoneWindowShort(db: Database) {
  const stored = new Set(await storedIds(db));
  for (const w of (await tripsLedger(db)).filter((r) => r.status === 'done')) {
    const missing = truthIds(ms(w.window_start), ms(w.window_end)).filter((id) => !stored.has(id));
    expect(missing, `done window ${String(w.window_start)}`).toEqual([]);
  }
}

describe('a page that does not add up fails its window, and the next run fills it', () => {
  const all = () => truthIds(h.fleet.startMs, h.fleet.endMs);
  it('the fleet has several pages of trips in a month', () => {
    expect(all().length).toBeGreaterThan(4 * PAGE);
  });

  const cases: [PageFaultKind, number][] = [
    ['short', 2],
    ['empty', 2],
    ['repeat', 3],
    ['shift_late', 2],
    ['shift_early', 2],
    ['total', 2],
  ];
  for (const [kind, page] of cases)
    it(`${kind} page ${page}: the window fails E_INCOMPLETE, none is done short; healthy again, the next run stores the truth`, async () => {
      const db = await openDatabase(join(h.dir, `${kind}.duckdb`));
      try {
        h.sim.setFaults({ pageLimit: PAGE, pageFault: { kind, page, path: '/trips' } });
        h.sim.resetStats();
        const first = await sync(db);
        expect(first.outcome).toBe('partial');
        expect(first.streams.trips!.windows.failed).toBeGreaterThanOrEqual(1);
        const reasons = first.errors.filter((e) => e.stream === 'trips').map((e) => e.reason);
        expect(reasons.length).toBeGreaterThanOrEqual(1);
        for (const r of reasons)
          expect(r).toMatch(/^E_INCOMPLETE: GET \/trips: [\d,]+ of [\d,]+ records announced; page \d+ /);
        await noDoneWindowShort(db);
        const failed = (await tripsLedger(db)).filter((r) => r.status === 'failed');
        expect(failed.length).toBe(first.streams.trips!.windows.failed);
        for (const f of failed) {
          expect(String(f.reason)).toMatch(/^E_INCOMPLETE: /);
          // the ledger keeps what the API announced (its trips overlapping the window), and that none was kept
          const announced = h.fleet.truth.trips(ms(f.window_start), ms(f.window_end)).length;
          expect([f.announced, f.kept]).toEqual([announced, 0]);
          expect(String(f.reason)).toContain(` of ${announced.toLocaleString('en-US')} records announced`);
        }
        // Less than everything was stored: the fault cost trips (the failed windows hold none).
        expect((await storedIds(db)).length).toBeLessThan(all().length);
        // `status` exits 3 and says why, in plain words, with the reason per window.
        const st = await statusOf(db);
        expect(st.verdict.exit_code).toBe(3);
        expect(st.verdict.problems).toContain(
          `account ${ACCOUNT}: ${failed.length} failed trips window(s), ${failed.length} of them because the API's pages held fewer or other records than it announced (E_INCOMPLETE); pulled again by the next run`,
        );
        const text = formatStatus(st);
        for (const f of failed) expect(text).toContain(String(f.reason));

        h.sim.setFaults({ pageLimit: PAGE });
        const second = await sync(db);
        expect(second.errors).toEqual([]);
        expect(second.outcome).toBe('ok');
        expect(await storedIds(db)).toEqual(all());
        const ledger = await tripsLedger(db);
        expect(ledger.every((r) => r.status === 'done')).toBe(true);
        // The windows pulled now say what the API announced, and that it was all kept.
        const pulled = ledger.filter((r) => r.announced !== null);
        expect(pulled.length).toBeGreaterThanOrEqual(failed.length);
        for (const r of pulled) expect(Number(r.kept) + Number(r.duplicates)).toBe(Number(r.announced));
      } finally {
        db.close();
      }
    }, 120_000);

  it('a window stored done but short (announced above kept) is pulled again by the next run', async () => {
    h.sim.setFaults({ pageLimit: PAGE });
    const db = await openDatabase(join(h.dir, 'short-done.duckdb'));
    try {
      expect((await sync(db)).outcome).toBe('ok');
      const [w] = (await tripsLedger(db)).filter((r) => Number(r.announced) > 0);
      // As an older version left it: 5 of the window's trips missing, the ledger saying so.
      const ids = truthIds(ms(w!.window_start), ms(w!.window_end)).slice(0, 5);
      const con = await db.connect();
      try {
        for (const id of ids) await con.run('DELETE FROM trips WHERE trip_id = $1', [id]);
        await con.run(
          `UPDATE ledger SET kept = kept - 5 WHERE account = $1 AND stream = 'trips' AND window_start = $2::TIMESTAMPTZ`,
          [ACCOUNT, (w!.window_start as Date).toISOString()],
        );
      } finally {
        con.closeSync();
      }
      expect((await storedIds(db)).length).toBe(all().length - 5);
      // `sync --plan` says so
      const plan = await planSync(
        { ...h.deps, db },
        { trigger: 'cli', fromDay: h.firstDay, toDay: h.lastDay, streams: ['trips'] },
      );
      expect(plan.notes).toContain(
        '1 trips window(s) stored done with fewer records than the API announced: pulled again',
      );
      h.sim.resetStats();
      const next = await sync(db);
      expect(next.outcome).toBe('ok');
      expect(next.streams.trips!.windows.done).toBeGreaterThanOrEqual(1);
      expect(await storedIds(db)).toEqual(all());
      const again = (await tripsLedger(db)).find((r) => ms(r.window_start) === ms(w!.window_start))!;
      expect(Number(again.kept) + Number(again.duplicates)).toBe(Number(again.announced));
      // A third run finds nothing short: no trips request.
      const third = await sync(db);
      expect(third.streams.trips?.requests ?? 0).toBe(0);
      // Windows from a version before the ledger kept `announced` (NULL) are left as they are,
      // even with trips missing: nothing says they are short.
      await queryDb(
        db,
        `UPDATE ledger SET announced = NULL, kept = NULL, duplicates = NULL WHERE account = $1`,
        [ACCOUNT],
      );
      await queryDb(db, 'DELETE FROM trips WHERE trip_id = $1', [all()[0]!]);
      const fourth = await sync(db);
      expect(fourth.streams.trips?.requests ?? 0).toBe(0);
      expect((await storedIds(db)).length).toBe(all().length - 1);
    } finally {
      db.close();
    }
  }, 120_000);

  it('a fill the API lists twice is counted as a duplicate, not a failure, and stored once', async () => {
    h.sim.setFaults({});
    const fill = findLandmarks(h.fleet).listedTwiceFill!;
    expect(fill).not.toBeNull();
    const db = await openDatabase(join(h.dir, 'fills.duckdb'));
    try {
      const run = await runSync(
        { ...h.deps, db },
        { trigger: 'cli', fromDay: h.firstDay, toDay: h.lastDay, streams: ['fuel'] },
      );
      expect(run.errors).toEqual([]);
      const [w] = await queryDb(
        db,
        `SELECT window_start, window_end, status, announced, kept, duplicates FROM ledger
         WHERE account = $1 AND stream = 'fuel_fills' AND scope = $2
           AND window_start <= $3::TIMESTAMPTZ AND window_end > $3::TIMESTAMPTZ AND announced IS NOT NULL`,
        [ACCOUNT, String(fill.vehicle_id), new Date(fill.at_ms).toISOString()],
      );
      expect(w).toBeDefined();
      // the truth's fills of the window: each kept once, the one listed twice counted apart
      const inWindow = h.fleet
        .fillsOf(fill.vehicle_id)
        .filter((f) => f.at_ms >= ms(w!.window_start) && f.at_ms < ms(w!.window_end)).length;
      expect(inWindow).toBeGreaterThan(0);
      expect(w!.status).toBe('done');
      expect([w!.announced, w!.kept, w!.duplicates]).toEqual([inWindow + 1, inWindow, 1]);
      const [stored] = await queryDb(
        db,
        'SELECT count(*)::INT AS n FROM fuel_fills WHERE account = $1 AND vehicle_id = $2 AND fill_time = $3::TIMESTAMPTZ',
        [ACCOUNT, fill.vehicle_id, new Date(Math.floor(fill.at_ms / 1000) * 1000).toISOString()],
      );
      expect(stored!.n).toBe(1);
    } finally {
      db.close();
    }
  }, 120_000);

  it('a per-vehicle list (fuel fills) repeating a record on page 2: its windows fail E_INCOMPLETE, none done short; the next run stores the truth', async () => {
    const db = await openDatabase(join(h.dir, 'fills-short.duckdb'));
    const fuel = (d: Database) =>
      runSync(
        { ...h.deps, db: d },
        { trigger: 'cli', fromDay: h.firstDay, toDay: h.lastDay, streams: ['fuel'] },
      );
    /** Fill times stored per vehicle, and the done fills windows. */
    const stored = async () =>
      new Set(
        (await queryDb(db, 'SELECT vehicle_id, fill_time FROM fuel_fills WHERE account = $1', [ACCOUNT])).map(
          (r) => `${String(r.vehicle_id)}@${ms(r.fill_time)}`,
        ),
      );
    const windows = () =>
      queryDb(
        db,
        `SELECT scope, window_start, window_end, status, reason FROM ledger WHERE account = $1 AND stream = 'fuel_fills'`,
        [ACCOUNT],
      );
    const truthIn = (scope: string, fromMs: number, toMs: number) =>
      h.fleet
        .fillsOf(Number(scope))
        .filter((f) => f.at_ms >= fromMs && f.at_ms < toMs)
        .map((f) => `${scope}@${Math.floor(f.at_ms / 1000) * 1000}`);
    try {
      h.sim.setFaults({ pageLimit: 3, pageFault: { kind: 'repeat', path: '/fuel/fills/{registration}' } });
      const first = await fuel(db);
      const failed = (await windows()).filter((w) => w.status === 'failed');
      expect(failed.length).toBeGreaterThanOrEqual(1);
      for (const f of failed)
        expect(String(f.reason)).toMatch(/^E_INCOMPLETE: GET \/fuel\/fills\/\{registration\}: /);
      expect(first.outcome).toBe('partial');
      let have = await stored();
      for (const w of (await windows()).filter((x) => x.status === 'done'))
        for (const k of truthIn(String(w.scope), ms(w.window_start), ms(w.window_end)))
          expect(have.has(k), `done window of ${String(w.scope)} lacks ${k}`).toBe(true);

      h.sim.setFaults({ pageLimit: 3 });
      const second = await fuel(db);
      expect(second.errors).toEqual([]);
      have = await stored();
      const all = await windows();
      expect(all.every((w) => w.status === 'done')).toBe(true);
      const want = new Set(
        all.flatMap((w) => truthIn(String(w.scope), ms(w.window_start), ms(w.window_end))),
      );
      expect([...have].sort()).toEqual([...want].sort());
      // the one fill the API lists twice is counted once as a duplicate, three records a page
      const [d] = await queryDb(
        db,
        `SELECT sum(duplicates)::INT AS n FROM ledger WHERE account = $1 AND stream = 'fuel_fills'`,
        [ACCOUNT],
      );
      expect(d!.n).toBe(1);
    } finally {
      db.close();
    }
  }, 120_000);
});
