/**
 * The API misbehaving past the client's retry budget: a window whose requests keep failing (5xx,
 * connection reset, a truncated or non-JSON body, a server that never answers) fails with its
 * reason in the ledger, the rest of the run goes on, the run says "partial", and the next run
 * fills exactly the gap (the database then equals a clean sync's). And a 429 storm: the bucket
 * pauses, absurd waits are capped and logged once, nothing is lost, no tight retry loop. The
 * client's waits move the harness's clock (instantWaits), except in the burst, which is timed.
 */
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetClientOptions } from '../../src/api/client.ts';
import { memoryLogger } from '../../src/log.ts';
import type { FaultOptions } from '../../src/simulator/faults.ts';
import { openDatabase } from '../../src/store/db.ts';
import { runSync } from '../../src/sync/run.ts';
import { dumpDatabase } from '../helpers/dbdump.ts';
import { startHarness, type Harness } from '../helpers/synced.ts';

const WINDOW_MS = 300;
let h: Harness;
let reference: Record<string, string>;

beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 6, days: 16 }, windowMs: WINDOW_MS, instantWaits: true });
  expect((await h.sync()).outcome).toBe('ok');
  reference = await dumpDatabase(h.dbPath);
}, 60_000);
afterAll(() => h?.close());

/**
 * A client with a small retry budget, logging into memory. Its timeout is short (400 ms) only
 * where a hung server is the case: elsewhere a busy machine (four test files on two cores) would
 * turn slow answers into timeouts, which are not the failure under test.
 */
function strictClient(extra: Partial<FleetClientOptions> = {}) {
  const log = memoryLogger('debug', ['demo-main']);
  const client = h.newClient({ log, maxRetries: 0, timeoutMs: 10_000, ...extra });
  return { client, log };
}

const range = () => ({ trigger: 'cli' as const, fromDay: h.firstDay, toDay: h.lastDay });

async function expectEqualsReference(path: string) {
  const dump = await dumpDatabase(path);
  for (const t of Object.keys(reference)) expect(dump[t], t).toBe(reference[t]);
}

const CASES: [string, FaultOptions, RegExp][] = [
  ['a 5xx burst', { serverErrorEvery: 4, serverErrorStatus: 503 }, /HTTP 503/],
  ['connection resets', { resetEvery: 4 }, /socket|reset|closed|ECONNRESET/i],
  ['truncated bodies', { truncateEvery: 4 }, /not JSON|truncated/i],
  ['non-JSON bodies (a proxy page)', { nonJsonEvery: 4 }, /not JSON/i],
  ['a server that stops answering', { hangEvery: 4 }, /time(d)? ?out/i],
];

describe('a window whose requests keep failing', () => {
  it.each(CASES)(
    '%s: the window fails with its reason, the run goes on, the next run fills it',
    async (_name, faults, reason) => {
      const name = _name.replace(/\W+/g, '-');
      const db = await openDatabase(join(h.dir, `${name}.duckdb`));
      try {
        const { client } = strictClient(faults.hangEvery ? { timeoutMs: 400 } : {});
        h.sim.resetStats();
        h.sim.setFaults(faults);
        let bad;
        try {
          bad = await runSync({ ...h.deps, db, client }, range());
        } finally {
          h.sim.setFaults({});
          await client.close();
        }
        const injected = Object.values(h.sim.stats().faults).reduce((a, b) => a + b, 0);
        expect(injected).toBeGreaterThan(2);
        expect(bad.outcome).toBe('partial');
        expect(bad.errors.length).toBeGreaterThan(0);
        for (const e of bad.errors) expect(e.reason).toMatch(reason);
        const con = await db.connect();
        const ledger = (
          await con.runAndReadAll('SELECT status, reason FROM ledger ORDER BY window_start')
        ).getRowObjectsJS();
        const run = (await con.runAndReadAll('SELECT outcome, errors FROM runs')).getRowObjectsJS();
        con.closeSync();
        const failed = ledger.filter((r) => r.status === 'failed');
        // Some windows failed (each with its reason), the others were stored: the run went on.
        expect(failed.length).toBeGreaterThan(0);
        for (const f of failed) expect(String(f.reason)).toMatch(reason);
        expect(ledger.filter((r) => r.status === 'done').length).toBeGreaterThan(failed.length);
        expect(run).toEqual([expect.objectContaining({ outcome: 'partial' })]);
        expect(String(run[0]!.errors)).toMatch(reason);

        const good = await runSync({ ...h.deps, db }, range());
        expect(good.outcome).toBe('ok');
      } finally {
        db.close();
      }
      await expectEqualsReference(join(h.dir, `${name}.duckdb`));
    },
    60_000,
  );
});

describe('a 429 storm', () => {
  it('a burst of 429s without retry headers: the bucket pauses, nothing is lost, no tight loop', async () => {
    const db = await openDatabase(join(h.dir, 'burst.duckdb'));
    // Real waits: the burst lasts 250 ms of real time.
    const { client, log } = strictClient({
      maxRetries: 4,
      sleep: (ms, signal) => delay(ms, undefined, { signal }),
    });
    h.sim.resetStats();
    h.sim.setFaults({ rateLimitEvery: 1, rateLimitHeaders: 'missing' });
    const stop = setTimeout(() => h.sim.setFaults({}), 250);
    try {
      const s = await runSync({ ...h.deps, db, client }, range());
      expect(s.outcome).toBe('ok');
      const st = h.sim.stats();
      expect(st.faults.rate_limit).toBeGreaterThan(0);
      // Every request the server refused was sent again exactly once per 429, no more.
      expect(st.total).toBe(s.requests);
      expect(s.retries).toBe(st.faults.rate_limit);
      // A tight loop would send hundreds in 250 ms; pausing the bucket keeps it to a handful.
      expect(st.faults.rate_limit).toBeLessThan(40);
      expect(
        log.lines.some((l) => /api rate-limit headers unusable .*no retry headers; using backoff/.test(l)),
      ).toBe(true);
    } finally {
      clearTimeout(stop);
      h.sim.setFaults({});
      await client.close();
      db.close();
    }
    await expectEqualsReference(join(h.dir, 'burst.duckdb'));
  }, 60_000);

  it('absurd waits (a year, a non-number) are capped at three windows and logged once', async () => {
    const db = await openDatabase(join(h.dir, 'absurd.duckdb'));
    const { client, log } = strictClient({ maxRetries: 4 });
    h.sim.resetStats();
    h.sim.setFaults({ rateLimitEvery: 12, rateLimitHeaders: 'absurd' });
    try {
      const s = await runSync({ ...h.deps, db, client }, range());
      expect(s.outcome).toBe('ok');
      const st = h.sim.stats();
      expect(st.faults.rate_limit).toBeGreaterThanOrEqual(2);
      expect(st.total).toBe(s.requests);
      const unusable = log.lines.filter((l) => l.includes('api rate-limit headers unusable'));
      expect(unusable).toHaveLength(1);
      expect(unusable[0]).toMatch(/asked for 31536000 s, capped/);
      const pauses = log.lines
        .filter((l) => l.includes('api 429: bucket paused'))
        .map((l) => Number(/pause_ms=(\d+)/.exec(l)?.[1]));
      expect(pauses).toHaveLength(st.faults.rate_limit);
      for (const p of pauses) expect(p).toBeLessThanOrEqual(3 * WINDOW_MS);
    } finally {
      h.sim.setFaults({});
      await client.close();
      db.close();
    }
    await expectEqualsReference(join(h.dir, 'absurd.duckdb'));
  }, 60_000);
});
