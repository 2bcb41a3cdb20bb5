/**
 * /healthz with a schedule and no run: 200 while the schedule has not been due yet, 503 "no run
 * yet" once it was due and nothing ran (here every scheduled run is refused before it starts, as a
 * configuration refusal is: no run row, no outcome), with the time it was due.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { FleetsyncError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import { startServer } from '../../src/server/start.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';

let dir: string;
let db: Database;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-norun-'));
  db = await openDatabase(join(dir, 'h.duckdb'));
});
afterAll(() => {
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const refused = () => Promise.reject(new FleetsyncError('E_CONFIG', 'refused before it started'));
const health = async (url: string) => {
  const r = await fetch(new URL('/healthz', url));
  return { status: r.status, body: (await r.json()) as { reasons: string[] } };
};

describe('/healthz before the first run', () => {
  it('is 200 while the schedule has not been due yet', async () => {
    const config = loadConfig({ FLEETSYNC_SCHEDULE: '0 2 1 1 *' });
    const s = await startServer({ now: Date.now, db, config, log: silentLogger, port: 0, runSync: refused });
    try {
      expect(await health(s.url)).toEqual({ status: 200, body: expect.objectContaining({ reasons: [] }) });
    } finally {
      await s.close();
    }
  });

  it('is 503 "no run yet" once the schedule was due and nothing ran', async () => {
    const config = loadConfig({ FLEETSYNC_SCHEDULE: '* * * * * *' });
    const s = await startServer({ now: Date.now, db, config, log: silentLogger, port: 0, runSync: refused });
    try {
      const due = s.nextRun()!;
      await expect.poll(async () => (await health(s.url)).status, { timeout: 5000 }).toBe(503);
      const reasons = (await health(s.url)).body.reasons as string[];
      expect(reasons).toHaveLength(1);
      // the due time in the account's zone with its offset (as /api/status writes times), that instant
      const at = /^no run yet: the schedule "\* \* \* \* \* \*" was due at (\S+)$/.exec(reasons[0]!)?.[1];
      expect(at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
      expect(Date.parse(at!)).toBe(due.getTime());
    } finally {
      await s.close();
    }
  });
});
