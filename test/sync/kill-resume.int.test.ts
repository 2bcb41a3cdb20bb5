/**
 * SIGKILL a real `fleetsync sync` process at several points, sync again, and the database equals
 * the one an uninterrupted sync produces: windows commit whole or not at all, and the ledger
 * makes the next run fill exactly the gaps — it sends exactly the requests of the windows the
 * killed run did not commit, plus the snapshots.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { runSync } from '../../src/sync/run.ts';
import type { RunSummary } from '../../src/sync/types.ts';
import { diffTable, dumpDatabase } from '../helpers/dbdump.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
let reference: Record<string, string>;
let referenceRun: RunSummary;

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');

function childEnv(dbPath: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    FLEET_BASE_URL: h.sim.baseUrl,
    FLEET_USERNAME: 'demo',
    FLEET_PASSWORD: 'demo-main',
    FLEET_TIMEZONE: h.fleet.timezone,
    FLEETSYNC_ACCOUNT: ACCOUNT,
    FLEETSYNC_DB: dbPath,
    FLEETSYNC_RATE_WINDOW_MS: '1000',
    FLEETSYNC_LOG_LEVEL: 'debug', // a line per committed window is at debug
  };
}

/** Runs the CLI sync and SIGKILLs it once `killAfterWindows` windows have been committed. */
function syncAndKill(
  dbPath: string,
  killAfterWindows: number,
): Promise<{ killed: boolean; windows: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CLI, 'sync', '--from', h.firstDay, '--to', h.lastDay],
      {
        env: childEnv(dbPath),
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let windows = 0;
    let killed = false;
    let buf = '';
    child.stderr.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (/ debug +window /.test(line)) windows++;
        if (!killed && windows >= killAfterWindows) {
          killed = true;
          child.kill('SIGKILL');
        }
      }
    });
    child.on('error', reject);
    child.on('exit', () => resolve({ killed, windows }));
  });
}

beforeAll(async () => {
  // The killed CLI child runs on the real clock; so does everything here (the history is months old).
  // Six vehicles over 30 days: 152 windows and 184 requests, past the last kill point (12 × 50: 255, 321).
  h = await startHarness({ fleet: { vehicles: 6, days: 30 }, realClock: true });
  referenceRun = await h.sync();
  expect(referenceRun.outcome).toBe('ok');
  reference = await dumpDatabase(h.dbPath);
}, 120_000);
afterAll(() => h?.close());

describe('a sync killed with SIGKILL', () => {
  for (const point of [1, 7, 40, 90]) {
    it(`after ${point} committed windows resumes to the same database`, async () => {
      const dbPath = join(h.dir, `killed-${point}.duckdb`);
      const first = await syncAndKill(dbPath, point);
      expect(first.killed, `the sync ended before ${point} windows (${first.windows})`).toBe(true);
      // The simulator still counts the killed run's last sends in its rate window (1 s here; the
      // EV bucket allows 10 in it): the next run starts after that window, as a real one would.
      await new Promise((r) => setTimeout(r, 1_600));
      // The next run (in this process) fills the gaps.
      const db = await openDatabase(dbPath);
      try {
        const s = await runSync({ ...h.deps, db }, { trigger: 'cli', fromDay: h.firstDay, toDay: h.lastDay });
        expect(s.outcome).toBe('ok');
        const con = await db.connect();
        const runs = (
          await con.runAndReadAll('SELECT outcome FROM runs ORDER BY started_at')
        ).getRowObjectsJS();
        // The requests of the windows the killed run committed (still its own in the ledger).
        const [kept] = (
          await con.runAndReadAll(
            "SELECT count(*) AS n, coalesce(sum(l.requests), 0) AS requests FROM ledger AS l JOIN runs AS r ON r.run_id = l.run_id WHERE r.outcome = 'interrupted'",
          )
        ).getRowObjectsJS();
        con.closeSync();
        expect(runs.map((r) => String(r.outcome)).sort()).toEqual(['interrupted', 'ok']);
        // Re-pulls only what was not committed: the uninterrupted run's requests (the snapshots
        // and every window) less those of the windows the killed run committed. No retries on
        // either side, so the counts are exact.
        expect(Number(kept!.n)).toBeGreaterThanOrEqual(Math.min(point, 1));
        expect([referenceRun.retries, s.retries]).toEqual([0, 0]);
        expect(s.requests).toBe(referenceRun.requests - Number(kept!.requests));
      } finally {
        db.close();
      }
      const dump = await dumpDatabase(dbPath);
      for (const table of Object.keys(reference))
        expect(diffTable(dump[table], reference[table]), table).toEqual({ onlyA: [], onlyB: [] });
    }, 90_000);
  }
});
