/**
 * The sync's memory bound on finished windows: where the API answers faster than a stream's
 * writer stores, finished windows wait for it in memory, so a stream fetches no further window
 * while its writer has `maxWriteBacklogBytes` or more waiting (its rows' estimated bytes). The
 * executor's debug line per window says what its writer had waiting when it fetched; the data
 * stored is the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT, queryDb, startHarness, type Harness } from '../helpers/synced.ts';
import type { RunSummary } from '../../src/sync/types.ts';

const BOUND = 8_000; // bytes: a few odometer windows' or trips' rows
let h: Harness;
const runs: { summary: RunSummary; backlog: number[]; trips: number; odometer: number }[] = [];

/** What waited on the writer at each window's fetch (the executor's debug line per window). */
const backlogs = (from: number) =>
  h.log.lines
    .slice(from)
    .filter((l) => / debug +window [a-z_]+=/.test(l))
    .map((l) => Number(/\bbacklog_bytes=(\d+)/.exec(l)![1]));

async function syncAll(maxWriteBacklogBytes?: number) {
  await queryDb(h.db, 'DELETE FROM ledger WHERE account = $1', [ACCOUNT]);
  h.deps.maxWriteBacklogBytes = maxWriteBacklogBytes;
  const mark = h.log.lines.length;
  const summary = await h.sync();
  const count = async (t: string) =>
    Number(
      (await queryDb(h.db, `SELECT count(*)::INTEGER AS n FROM ${t} WHERE account = $1`, [ACCOUNT]))[0]!.n,
    );
  runs.push({
    summary,
    backlog: backlogs(mark),
    trips: await count('trips'),
    odometer: await count('odometer_windows'),
  });
}

beforeAll(async () => {
  // Six vehicles over 40 days: enough rows a window (trips, odometer) to outrun the writer.
  h = await startHarness({ fleet: { vehicles: 6, days: 40 } });
  await syncAll(); // the default bound (4 MiB): never reached by this fleet
  await syncAll(BOUND);
}, 180_000);
afterAll(() => h?.close());

describe('a stream fetches no further window while its writer is behind', () => {
  it('without the bound reached, windows are fetched while earlier ones wait for the writer', () => {
    expect(runs[0]!.summary.outcome).toBe('ok');
    expect(Math.max(...runs[0]!.backlog)).toBeGreaterThanOrEqual(BOUND);
  });

  it(`with a bound of ${BOUND} bytes, no window is fetched while as many wait, and the same data is stored`, () => {
    const [free, bounded] = runs;
    expect(bounded!.summary.outcome).toBe('ok');
    expect(bounded!.backlog.length).toBe(free!.backlog.length);
    expect(Math.max(...bounded!.backlog)).toBeLessThan(BOUND);
    const truth = h.fleet.truth.trips(h.fleet.startMs, h.fleet.endMs).length;
    expect(free!.trips).toBe(truth);
    expect(bounded!.trips).toBe(truth);
    expect(bounded!.odometer).toBe(free!.odometer);
  });
});
