/**
 * The sync's memory bound on fleet-wide windows: a trips window's records are all held until its
 * write, so no trips window may hold more than `maxWindowRecords`. On a fleet whose month holds
 * several times the bound, every window the sync held stays within it — both where the plan
 * already cut the month (from the stored history's rate) and where it could not know (the first
 * run, no vehicles stored: page 1's total said too many, and the window was fetched in pieces) —
 * and the trips stored are exactly the simulator's, once each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';
import type { RunSummary } from '../../src/sync/types.ts';

const MAX = 600;
let h: Harness;
let first: RunSummary;
let second: RunSummary;

/** The rows each trips window held (the executor's one debug line per window), and the splits. */
function tripWindows(from: number) {
  const lines = h.log.lines.slice(from);
  const ofTrips = (l: string) => /\bstream="?trips\b/.test(l);
  return {
    rows: lines
      .filter((l) => / debug +window [a-z_]+=/.test(l) && ofTrips(l))
      .map((l) => Number(/\brows=(\d+)/.exec(l)![1])),
    splits: lines.filter((l) => / debug +window split /.test(l) && ofTrips(l)).length,
  };
}

async function storedTripIds(): Promise<string[]> {
  const con = await h.db.connect();
  try {
    const r = await con.runAndReadAll('SELECT trip_id FROM trips WHERE account = $1', [ACCOUNT]);
    return r.getRowObjectsJS().map((x) => String(x.trip_id));
  } finally {
    con.closeSync();
  }
}

let firstLog: ReturnType<typeof tripWindows>;
let secondLog: ReturnType<typeof tripWindows>;

beforeAll(async () => {
  // 14 vehicles × 75 days: about 2,000 trips a month, more than three times the bound.
  h = await startHarness({ deps: { maxWindowRecords: MAX } });
  // Trips alone, no vehicles stored: the plan's estimate (4 a day) is far too low, so the bound
  // is kept at fetch time.
  first = await h.sync({ streams: ['trips'] });
  firstLog = tripWindows(0);
  // Again over the whole range, after the stored trips are forgotten: now the history's rate
  // plans the pieces.
  const con = await h.db.connect();
  try {
    await con.run("DELETE FROM ledger WHERE account = $1 AND stream = 'trips'", [ACCOUNT]);
  } finally {
    con.closeSync();
  }
  const mark = h.log.lines.length;
  second = await h.sync({ streams: ['trips'] });
  secondLog = tripWindows(mark);
}, 120_000);
afterAll(() => h?.close());

describe('a trips window holds at most maxWindowRecords trips', () => {
  it('first run: windows found too big at page 1 are fetched in pieces within the bound', async () => {
    expect(first.outcome).toBe('ok');
    expect(firstLog.splits).toBeGreaterThan(0);
    expect(firstLog.rows.length).toBeGreaterThan(3);
    expect(Math.max(...firstLog.rows)).toBeLessThanOrEqual(MAX);
    const truth = h.fleet.truth.trips(h.fleet.startMs, h.fleet.endMs).map((t) => t.trip_id);
    expect((await storedTripIds()).sort()).toEqual([...truth].sort());
  });

  it('a run with history plans the pieces: no window is fetched to be split, and the trips are the same', async () => {
    expect(second.outcome).toBe('ok');
    expect(secondLog.splits).toBe(0);
    expect(Math.max(...secondLog.rows)).toBeLessThanOrEqual(MAX);
    const truth = h.fleet.truth.trips(h.fleet.startMs, h.fleet.endMs).map((t) => t.trip_id);
    expect((await storedTripIds()).sort()).toEqual([...truth].sort());
  });
});
