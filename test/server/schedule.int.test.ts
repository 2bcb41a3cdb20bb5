/**
 * The scheduler really syncs: `startServer` with an every-second cron expression (node-cron's
 * seconds field) over a simulator harness runs a sync with trigger "schedule", which lands in the
 * runs table and in GET /api/status, next to the next run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { startServer } from '../../src/server/start.ts';
import { runSync } from '../../src/sync/run.ts';
import type { RunSummary } from '../../src/sync/types.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 3, days: 10 } });
}, 60_000);
afterAll(() => h?.close());

describe('scheduled sync', () => {
  it('runs on FLEETSYNC_SCHEDULE, records trigger "schedule" and shows the next run', async () => {
    const triggers: string[] = [];
    let inflight: Promise<RunSummary> | null = null;
    const s = await startServer({
      db: h.db,
      config: loadConfig({
        FLEETSYNC_ACCOUNT: ACCOUNT,
        FLEET_TIMEZONE: h.fleet.timezone,
        FLEETSYNC_SCHEDULE: '* * * * * *',
      }),
      log: silentLogger,
      now: h.now,
      port: 0,
      runSync: (trigger) => {
        triggers.push(trigger);
        inflight = runSync(h.deps, { trigger, fromDay: h.firstDay, toDay: h.lastDay });
        return inflight;
      },
    });
    try {
      const before = (await (await fetch(new URL('/api/status', s.url))).json()) as {
        sync: { schedule: string; next_run: string | null };
      };
      expect(before.sync.schedule).toBe('* * * * * *');
      expect(Date.parse(before.sync.next_run!)).toBeGreaterThan(Date.now() - 1000);
      await expect
        .poll(
          async () => {
            const con = await h.db.connect();
            try {
              const r = await con.runAndReadAll(
                "SELECT outcome FROM runs WHERE trigger = 'schedule' AND outcome <> 'running'",
              );
              return r.getRowObjectsJS().map((x) => x.outcome);
            } finally {
              con.closeSync();
            }
          },
          { timeout: 30_000, interval: 200 },
        )
        .toContain('ok');
      // While the next scheduled run is going, the status is answered from its last computation
      // and refreshed behind it (status-routes.ts): the finished run shows within a call or two.
      type Status = { last_run: { trigger: string } | null; sync: { next_run: string | null } };
      let st: Status | undefined;
      await expect
        .poll(
          async () => {
            st = (await (await fetch(new URL('/api/status', s.url))).json()) as Status;
            return st.last_run?.trigger;
          },
          { timeout: 15_000, interval: 200 },
        )
        .toBe('schedule');
      st = st!;
      expect(st.sync.next_run).not.toBeNull();
      expect(triggers.every((t) => t === 'schedule')).toBe(true);
    } finally {
      await s.close();
      await (inflight as Promise<RunSummary> | null)?.catch(() => undefined);
    }
  }, 60_000);
});
