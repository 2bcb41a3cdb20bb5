/**
 * The overview's answers computed after a sync run (warm-up.ts): a server that syncs through its
 * gate (POST /api/sync) warms the overview's calls for the data the run committed, so the first
 * visit after the run reads kept answers — the same answers a server without the warm-up
 * computes, with the synced trips in them.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { overviewCalls } from '../../src/server/report-routes.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { runSync } from '../../src/sync/run.ts';
import { localDate } from '../../src/time.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
let warm: RunningServer;
let plain: RunningServer;
beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 3, days: 20 }, instantWaits: true });
  const base = {
    db: h.db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: h.fleet.timezone }),
    log: silentLogger,
    now: h.now,
    port: 0,
    schedule: null,
  };
  warm = await startServer({
    ...base,
    warmUp: true,
    runSync: (trigger) => runSync(h.deps, { trigger, fromDay: h.firstDay, toDay: h.lastDay }),
  });
  plain = await startServer(base);
}, 60_000);
afterAll(async () => {
  await warm?.close();
  await plain?.close();
  h?.close();
});

const get = (srv: RunningServer, report: string, query: Record<string, string>) =>
  fetch(new URL(`/api/reports/${report}?${new URLSearchParams(query).toString()}`, srv.url));

it('after a sync run the overview’s calls are answered from the memo, with the run’s data', async () => {
  await warm.warmed(); // the pass at start: nothing synced yet
  const calls = overviewCalls(localDate(h.now(), h.fleet.timezone));
  const kpis = calls.find((c) => c.report === 'kpis')!;
  const before = (await (await get(warm, kpis.report, kpis.query)).json()) as {
    rows: { trips: number | null }[];
  };
  expect(before.rows[0]!.trips).toBeNull(); // not synced: unknown, not 0

  const started = await fetch(new URL('/api/sync', warm.url), {
    method: 'POST',
    headers: { 'X-Fleetsync-Request': '1' },
  });
  expect(started.status).toBeLessThan(300);
  await expect
    .poll(
      async () =>
        (
          (await (await fetch(new URL('/api/status', warm.url))).json()) as {
            sync: { running: boolean };
            last_run: unknown;
          }
        ).sync.running === false,
      {
        timeout: 60_000,
        interval: 200,
      },
    )
    .toBe(true);
  await warm.warmed();

  // the simulator's trips in the period, counted from its ground truth
  const { from, to } = kpis.query as { from: string; to: string };
  const zone = h.fleet.timezone;
  const truth = h.fleet.vehicles
    .flatMap((v) => h.fleet.tripsOf(v.vehicle_id))
    .filter((t) => {
      const d = localDate(t.start_ms, zone);
      return d >= from && d <= to && d >= h.firstDay && d <= h.lastDay;
    }).length;
  expect(truth).toBeGreaterThan(0);
  for (const { report, query } of calls) {
    const w = await get(warm, report, query);
    const p = await get(plain, report, query);
    expect(w.headers.get('x-fleetsync-answer'), report).toBe('kept');
    expect(p.headers.get('x-fleetsync-answer'), report).toBe('computed');
    const strip = async (r: Response) => {
      const j = (await r.json()) as Record<string, unknown>;
      delete j.generated_at;
      return j;
    };
    const [a, b] = [await strip(w), await strip(p)];
    expect(a, report).toEqual(b);
    if (report === 'kpis') expect((a.rows as { trips: number }[])[0]!.trips).toBe(truth);
  }
});
