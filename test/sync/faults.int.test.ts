/**
 * A sync through a bad night at the API: injected 429s (every header variant), 5xx, resets and
 * truncated bodies. Nothing is lost or duplicated: the database equals a clean sync's. A payload
 * the parser cannot read fails only its window, with the reason and a sample in the ledger; the
 * next run fills the gap. The client's waits (each 429's pause, each backoff) move the harness's
 * clock instead of passing in real time (instantWaits): the simulator's windows slide as far.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger } from '../../src/log.ts';
import { openDatabase } from '../../src/store/db.ts';
import { runSync } from '../../src/sync/run.ts';
import { dumpDatabase } from '../helpers/dbdump.ts';
import { startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
let reference: Record<string, string>;

beforeAll(async () => {
  // 6 vehicles (every kind of powertrain) over 20 days: ~110 requests a sync, 12 of them 429s
  h = await startHarness({ fleet: { vehicles: 6, days: 20 }, instantWaits: true });
  expect((await h.sync()).outcome).toBe('ok');
  reference = await dumpDatabase(h.dbPath);
}, 120_000);
afterAll(() => h?.close());

async function syncInto(name: string, client = h.deps.client) {
  const db = await openDatabase(join(h.dir, `${name}.duckdb`));
  try {
    return {
      summary: await runSync(
        { ...h.deps, db, client },
        { trigger: 'cli', fromDay: h.firstDay, toDay: h.lastDay },
      ),
      path: db.path,
    };
  } finally {
    db.close();
  }
}

describe('a sync under injected faults', () => {
  for (const headers of ['normal', 'zero', 'missing', 'absurd'] as const) {
    it(`recovers from 429s with ${headers} retry headers and stores the same data`, async () => {
      h.sim.resetStats();
      h.sim.setFaults({
        rateLimitEvery: 9,
        rateLimitHeaders: headers,
        rateLimitRetryAfterS: 1,
      });
      const log = memoryLogger('debug', ['demo-main']);
      const client = h.newClient({ log });
      const { summary, path } = await syncInto(`429-${headers}`, client).finally(() => client.close());
      h.sim.setFaults({});
      const st = h.sim.stats();
      expect(st.faults.rate_limit).toBeGreaterThanOrEqual(3);
      // Each 429 paused its bucket for what its headers announced: 1 s, or three windows (3 s)
      // for a year; a "retry now" or no header at all, a backoff of at least 1/60 window.
      const pauses = log.lines
        .filter((l) => l.includes('api 429: bucket paused'))
        .map((l) => Number(/pause_ms=(\d+)/.exec(l)?.[1]));
      expect(pauses).toHaveLength(st.faults.rate_limit);
      for (const ms of pauses)
        if (headers === 'normal') expect(ms).toBeGreaterThanOrEqual(1000);
        else if (headers === 'absurd') expect(ms).toBe(3 * h.deps.windowMs);
        else expect(ms).toBeGreaterThanOrEqual(h.deps.windowMs / 60);
      expect(summary.outcome, JSON.stringify({ reason: summary.reason, errors: summary.errors })).toBe('ok');
      expect(summary.retries).toBeGreaterThanOrEqual(st.faults.rate_limit);
      // No tight retry loop: one retry per injected 429, not dozens.
      expect(st.total).toBeLessThan(summary.requests + 5);
      const dump = await dumpDatabase(path);
      for (const t of Object.keys(reference)) expect(dump[t], t).toBe(reference[t]);
    }, 120_000);
  }

  it('recovers from 5xx, connection resets and truncated bodies', async () => {
    h.sim.resetStats();
    h.sim.setFaults({ serverErrorEvery: 11, resetEvery: 17, truncateEvery: 13 });
    // About one request in five is faulted, and a retry (after a jittered backoff, among other
    // requests) lands on a fault again with that chance: with the default 4 retries, ~30 faulted
    // requests give up together with a chance of 30 × 0.19⁴ ≈ 4 % a run — a window honestly failed,
    // not what this test is about. 8 retries make it ≈ 30 × 0.19⁸ ≈ 0.005 %.
    const client = h.newClient({ maxRetries: 8 });
    const { summary, path } = await syncInto('5xx', client).finally(() => client.close());
    h.sim.setFaults({});
    const st = h.sim.stats();
    expect(st.faults.server_error + st.faults.reset + st.faults.truncate).toBeGreaterThan(5);
    expect(summary.outcome, JSON.stringify({ reason: summary.reason, errors: summary.errors })).toBe('ok');
    const dump = await dumpDatabase(path);
    for (const t of Object.keys(reference)) expect(dump[t], t).toBe(reference[t]);
  }, 120_000);

  it('fails only the windows whose payload cannot be read, then fills them on the next run', async () => {
    h.sim.setFaults({
      fieldFault: { kind: 'odometer', field: 'odometer_reset', renameTo: 'odo_reset_flag' },
    });
    const db = await openDatabase(join(h.dir, 'payload.duckdb'));
    try {
      const bad = await runSync({ ...h.deps, db }, { trigger: 'cli', fromDay: h.firstDay, toDay: h.lastDay });
      expect(bad.outcome).toBe('partial');
      expect(bad.streams.odometer?.windows.failed).toBeGreaterThan(0);
      expect(bad.streams.trips?.windows.failed ?? 0).toBe(0);
      const con = await db.connect();
      const failed = (
        await con.runAndReadAll("SELECT reason, sample FROM ledger WHERE status = 'failed'")
      ).getRowObjectsJS();
      con.closeSync();
      expect(failed.length).toBeGreaterThan(0);
      expect(String(failed[0]!.reason)).toMatch(/odometer/i);
      expect(String(failed[0]!.sample)).toContain('odo_reset_flag');
      h.sim.setFaults({});
      const good = await runSync(
        { ...h.deps, db },
        { trigger: 'cli', fromDay: h.firstDay, toDay: h.lastDay },
      );
      expect(good.outcome).toBe('ok');
    } finally {
      db.close();
      h.sim.setFaults({});
    }
    const dump = await dumpDatabase(join(h.dir, 'payload.duckdb'));
    for (const t of ['trips', 'odometer_windows', 'fuel_consumed', 'geofence_visits'])
      expect(dump[t], t).toBe(reference[t]);
  }, 120_000);
});
