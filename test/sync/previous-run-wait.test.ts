/**
 * A sync started right after another waits out the API's rate-limit window of the previous run's
 * requests (they still count, per account, for a window: fleet-api-contract.md "Rate limits") and
 * says so at warn — what a terminal's sync shows — with the reason and the time left.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createFleetClient } from '../../src/api/client.ts';
import { memoryLogger } from '../../src/log.ts';
import type { RunOutcome } from '../../src/outcome/outcomes.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { readyClient } from '../../src/sync/run.ts';
import type { SyncDeps } from '../../src/sync/types.ts';

let db: Database;
beforeAll(async () => {
  db = await openDatabase(':memory:');
});
afterAll(() => db?.close());

it('the previous run sent 5 s ago: 57 s left of its 60 s window and 1.2 s margin, said at warn', async () => {
  let nowMs = Date.parse('2026-11-27T10:00:00Z');
  const now = () => nowMs;
  const log = memoryLogger('warn');
  const client = createFleetClient({
    baseUrl: 'http://127.0.0.1:1/rest',
    username: 'u',
    password: 'p',
    timezone: 'UTC',
    windowMs: 60_000,
    safetyMargin: 0.02,
    now,
  });
  const con = await db.connect();
  try {
    const previous = { last_request_ms: nowMs - 5_000 } as RunOutcome;
    await readyClient(con, { account: 'acme', client, log } as unknown as SyncDeps, [], previous, now);
    // 60 s + 2 % (1.2 s) − 5 s = 56.2 s, said in whole seconds rounded up
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatch(
      /warn +waiting for the rate-limit window of the previous run before the first request: 57 s left \(its requests, the last 5 s ago, still count in the API's per-account limits\)/,
    );
    // a window and its margin later, nothing to wait for, nothing said
    nowMs += 61_200;
    await readyClient(con, { account: 'acme', client, log } as unknown as SyncDeps, [], previous, now);
    expect(log.lines).toHaveLength(1);
  } finally {
    con.closeSync();
    await client.close();
  }
});
