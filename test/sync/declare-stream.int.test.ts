/**
 * Adding a stream is one file: test/helpers/declared-stream.ts declares `all_fills` (every
 * vehicle's fills from GET /fuel/fills, day windows, fleet-wide) and nothing in src/ names it.
 * Registered by listing it beside the built-in streams, it is planned, run in its declared place,
 * recorded in the ledger window by window, stored to the simulator's truth, and the change watch
 * protects its endpoint.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkApiChanges } from '../../src/changes/check.ts';
import { DEFAULT_RELEASES } from '../../src/simulator/changelog.ts';
import { byCriticalPath } from '../../src/sync/executor.ts';
import { buildPlan, plannedVehicles } from '../../src/sync/planner.ts';
import type { StreamDefinition } from '../../src/sync/stream.ts';
import { BUILTIN_STREAMS, endpointsOf, streamNames } from '../../src/sync/streams/index.ts';
import { dayRange, dayWindows } from '../../src/sync/windows.ts';
import { ALL_FILLS_SCHEMA, allFills } from '../helpers/declared-stream.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

const STREAMS_WITH_TEST = [...BUILTIN_STREAMS, allFills];
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 8, days: 12 }, deps: { streams: STREAMS_WITH_TEST } });
  const con = await h.db.connect();
  await con.run(ALL_FILLS_SCHEMA);
  con.closeSync();
}, 60_000);
afterAll(() => h?.close());

async function query(sql: string, params: (string | number)[] = []) {
  const con = await h.db.connect();
  try {
    return (await con.runAndReadAll(sql, params)).getRowObjectsJS();
  } finally {
    con.closeSync();
  }
}

describe('a stream declared in one file', () => {
  it('is a stream the run knows, after the built-in ones; the built-in list does not have it', () => {
    expect(streamNames(STREAMS_WITH_TEST)).toContain('all_fills');
    expect(streamNames(BUILTIN_STREAMS)).not.toContain('all_fills');
  });

  it('is planned: one unit per local day of the range, on the default bucket', async () => {
    const con = await h.db.connect();
    try {
      const range = dayRange(h.firstDay, h.lastDay, h.fleet.timezone);
      const { units, summary } = await buildPlan(con, {
        account: ACCOUNT,
        zone: h.fleet.timezone,
        range,
        streams: new Set(['trips', 'visits', 'bookings', 'all_fills']),
        vehicles: await plannedVehicles(con, ACCOUNT),
        runId: 'plan',
        windowMs: 1000,
        definitions: STREAMS_WITH_TEST,
      });
      const mine = units.filter((u) => u.stream === 'all_fills');
      expect(mine.map((u) => u.window)).toEqual(dayWindows(range.startMs, range.endMs, h.fleet.timezone));
      expect(summary.requestsByStream.all_fills).toBe(mine.length);
      // It starts where it declared: after the toll visits, before the bookings.
      const order = [...new Set(byCriticalPath(units, STREAMS_WITH_TEST).map((u) => u.stream))];
      expect(order).toEqual(['trips', 'visits', 'all_fills', 'bookings']);
    } finally {
      con.closeSync();
    }
  });

  it('syncs: its ledger windows are done day by day and its rows are the simulator’s fills', async () => {
    const s = await h.sync();
    expect(s.outcome).toBe('ok');
    const days = dayWindows(
      dayRange(h.firstDay, h.lastDay, h.fleet.timezone).startMs,
      dayRange(h.firstDay, h.lastDay, h.fleet.timezone).endMs,
      h.fleet.timezone,
    );
    expect(s.streams.all_fills?.windows).toEqual({ done: days.length });
    const ledger = await query(
      `SELECT epoch_ms(window_start) AS s, epoch_ms(window_end) AS e, status FROM ledger
       WHERE account = $1 AND stream = 'all_fills' ORDER BY window_start`,
      [ACCOUNT],
    );
    expect(ledger.map((r) => ({ startMs: Number(r.s), endMs: Number(r.e) }))).toEqual(days);
    expect(new Set(ledger.map((r) => r.status))).toEqual(new Set(['done']));

    const { startMs, endMs } = dayRange(h.firstDay, h.lastDay, h.fleet.timezone);
    const truth = h.fleet.vehicles.flatMap((v) =>
      h.fleet.fillsOf(v.vehicle_id).filter((f) => f.at_ms >= startMs && f.at_ms < endMs),
    );
    expect(truth.length).toBeGreaterThan(0);
    const [stored] = await query(
      'SELECT count(*)::INTEGER AS n, sum(amount_l) AS l FROM all_fills WHERE account = $1',
      [ACCOUNT],
    );
    expect(stored!.n).toBe(truth.length); // a fill listed twice is stored once
    expect(Number(stored!.l)).toBeCloseTo(
      truth.reduce((a, f) => a + f.litres, 0),
      1,
    );
    // A second run finds nothing of it left to pull.
    const again = await h.sync();
    expect(again.streams.all_fills).toBeUndefined();
  });

  it('is protected by the change watch: a breaking note on GET /fuel/fills is flagged', async () => {
    // The built-in fuel stream reads GET /fuel/fills too (fleet-wide fills, issue 25): what the
    // declaration protects on its own is shown beside the other built-in streams.
    const others = BUILTIN_STREAMS.filter((d) => !d.endpoints.includes('GET /fuel/fills'));
    expect(others.length).toBe(BUILTIN_STREAMS.length - 1);
    expect(endpointsOf([...others, allFills])).toContain('GET /fuel/fills');
    expect(endpointsOf(others)).not.toContain('GET /fuel/fills');
    h.sim.setReleases([
      ...DEFAULT_RELEASES,
      {
        version: '1.26.1121.1',
        date: '2026-11-21',
        notes: [
          {
            section: 'Breaking Changes',
            text: '`GET /fuel/fills` now needs `filter[vehicle_id]`.',
            endpoints: ['GET /fuel/fills'],
            area: 'Fuel',
          },
        ],
      },
    ]);
    const flagged = [
      expect.objectContaining({ version: '1.26.1121.1', kind: 'breaking', endpoints: ['GET /fuel/fills'] }),
    ];
    const s = await h.sync();
    expect(s.apiChanges?.flagged).toEqual(flagged);
    // The same feed read fresh for two registries: with the declared stream the note is flagged,
    // the other built-in streams alone flag nothing.
    const check = (defs: readonly StreamDefinition[], tag: string) =>
      checkApiChanges({
        db: h.db,
        baseUrl: h.sim.baseUrl,
        log: h.log,
        now: h.now,
        feedUrl: `${new URL(h.sim.baseUrl).origin}/changelog/records.json?${tag}`,
        syncEndpoints: endpointsOf(defs),
      });
    const declared = await check([...others, allFills], 'declared');
    expect(declared.status).toBe('updated');
    expect(declared.flagged).toEqual(flagged);
    const plain = await check(others, 'others');
    expect(plain.status).toBe('updated');
    expect(plain.flagged).toEqual([]);
  });
});
