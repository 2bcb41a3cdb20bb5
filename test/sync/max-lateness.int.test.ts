/**
 * The maximum lateness: a tracker silent for good (its backlog never arrives within the test).
 * Windows the silent vehicle's data has not reached wait for it (incomplete, pulled again) until
 * the maximum lateness has passed since their end; then they are accepted and flagged "accepted
 * incomplete" with the reason, which `status` lists. A vehicle silent for longer than the maximum
 * lateness before a window starts holds that window no more (taken as out of service).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryJs } from '../../src/store/queries.ts';
import { addDays, localDate, localDayBounds } from '../../src/time.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

const DAY = 86_400_000;
const MAX_LATE_DAYS = 12;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    fleet: {
      vehicles: 6,
      days: 40,
      endDay: '2026-04-20',
      silence: { vehicleIndex: 0, fromDay: 20, days: 15, uploadAfterMs: 90 * DAY },
    },
    nowOffsetMs: DAY,
    deps: { maxLateMs: MAX_LATE_DAYS * DAY },
  });
  expect((await h.sync()).outcome).toBe('ok');
}, 120_000);
afterAll(() => h?.close());

describe('the maximum lateness', () => {
  it('keeps waiting windows incomplete, accepts older ones as flagged, and lets later ones settle', async () => {
    const zone = h.fleet.timezone;
    const v = h.fleet.vehicles[0]!;
    const silentFrom = v.silence!.from_ms;
    const now = h.now();
    const con = await h.db.connect();
    const visits = (
      await con.runAndReadAll(
        "SELECT window_start, status, reason FROM ledger WHERE account = $1 AND stream = 'visits'",
        [ACCOUNT],
      )
    ).getRowObjectsJS();
    const problems = await queryJs(con, 'status/problem_windows', [1000]);
    con.closeSync();
    const seen = { flagged: 0, incomplete: 0, done: 0 };
    for (let day = localDate(silentFrom, zone); day <= h.lastDay; day = addDays(day, 1)) {
      const w = localDayBounds(day, zone);
      if (w.endMs > now - 3 * DAY) continue; // the look-back: incomplete whatever the horizons
      // (A 25-hour day is two windows.)
      const rows = visits.filter((r) => {
        const t = (r.window_start as Date).getTime();
        return t >= w.startMs && t < w.endMs;
      });
      expect(rows.length, day).toBeGreaterThan(0);
      // Worked by hand: its data stops at silentFrom; it holds windows starting before
      // silentFrom + 12 days; those ending 12 days or more before now are accepted.
      const held = w.startMs < silentFrom + MAX_LATE_DAYS * DAY;
      const want = !held ? 'done' : now - w.endMs >= MAX_LATE_DAYS * DAY ? 'flagged' : 'incomplete';
      for (const r of rows) {
        expect(r.status, day).toBe(want);
        seen[want]++;
        if (want === 'flagged')
          expect(String(r.reason)).toMatch(
            new RegExp(
              `^accepted incomplete: after the maximum lateness of 12 days the data of ${v.registration}`,
            ),
          );
        if (want === 'incomplete') expect(String(r.reason)).toMatch(/^waiting for late data/);
      }
    }
    expect(seen.flagged).toBeGreaterThan(2);
    expect(seen.incomplete).toBeGreaterThan(1);
    expect(seen.done).toBeGreaterThan(1);
    // `status` lists the accepted windows with their reason.
    expect(
      problems.filter((p) => p.stream === 'visits' && String(p.reason).startsWith('accepted incomplete'))
        .length,
    ).toBe(seen.flagged);
  }, 60_000);
});
