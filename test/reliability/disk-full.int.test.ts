/**
 * A full disk, as a user meets it: the database on a small tmpfs that a first sync leaves with
 * room, then filled to the last byte. The next `fleetsync sync` (a real child process) cannot write
 * its windows nor its run row; the state file beside the database (fixed size, rewritten in place)
 * still takes its outcome, so: an alert reaches a real webhook receiver, `status` exits non-zero
 * naming ENOSPC, and `serve` answers /healthz 503 and lists the run with ENOSPC in /api/status
 * (what the runs page reads) and /metrics `fleetsync_last_run_unrecorded 1`, whatever the `runs`
 * table says.
 * Needs `mount -t tmpfs` (root, as in CI here): without it the test fails, it never skips.
 * The run that prepares the database and `status` go through `main` in this process; the runs on
 * the full disk and the server are child processes.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutcomes } from '../../src/outcome/outcomes.ts';
import { addDays } from '../../src/time.ts';
import { runCli, spawnCli } from '../helpers/cli-process.ts';
import { runMain } from '../helpers/cli.ts';
import { parsePrometheus, sample, startWebhookReceiver, type WebhookReceiver } from '../helpers/receivers.ts';
import { ACCOUNT, harnessCliEnv, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
let hook: WebhookReceiver;
let mnt: string;
let env: Record<string, string>;
let mounted = false;

/** Writes a filler file until the file system refuses (ENOSPC), down to 512-byte writes. */
function fill(dir: string): number {
  const fd = openSync(join(dir, 'filler'), 'w');
  let written = 0;
  try {
    for (const size of [1 << 20, 65_536, 4096, 512]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          written += writeSync(fd, chunk);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

beforeAll(async () => {
  // The child processes run on the real clock; so does the harness (its history is in the past).
  h = await startHarness({ fleet: { vehicles: 5, days: 20 }, realClock: true });
  hook = await startWebhookReceiver();
  mnt = join(h.dir, 'small-volume');
  mkdirSync(mnt);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', mnt]);
  mounted = true;
  env = harnessCliEnv(h, {
    FLEETSYNC_DB: join(mnt, 'fleet.duckdb'),
    FLEETSYNC_ALERT_WEBHOOK: `${hook.url}/hooks/disk`,
    FLEETSYNC_HOST: '127.0.0.1',
    FLEETSYNC_PORT: '0',
  });
}, 60_000);
afterAll(async () => {
  if (mounted) execFileSync('umount', ['-l', mnt]);
  await hook?.close();
  await h?.close();
});

describe('the database on a disk that fills up', () => {
  it('alerts through the webhook, status exits non-zero, /healthz 503 and the runs API name ENOSPC', async () => {
    const first = await runMain(env, 'sync', '--from', h.firstDay, '--to', addDays(h.firstDay, 2));
    expect(first.code, first.stderr).toBe(0);
    expect(hook.posts).toHaveLength(0);
    expect(fill(mnt)).toBeGreaterThan(0);

    // Two nightly runs on the full disk: neither can write its row (the first refused insert
    // leaves the finishing UPDATE nothing to change, without an error).
    for (let i = 0; i < 2; i++) {
      const full = await runCli(['sync', '--from', h.firstDay, '--to', h.lastDay], env);
      expect(full.code, full.stderr).not.toBe(0);
      expect(full.stderr).toContain('could not record the run');
    }
    // The outcome the run row could not take is in the state file, with its error.
    const o = readOutcomes(env.FLEETSYNC_DB!).accounts[ACCOUNT]!;
    expect(o).toMatchObject({ state: 'failed', recorded: false });
    expect(o.error).toMatch(/ENOSPC/);

    // The alert went out from the state, without a database write (from the sync, or its successor).
    const status = await runMain(env, 'status');
    expect(status.code).toBe(1);
    expect(status.stdout + status.stderr).toMatch(/ENOSPC/);

    const serve = spawnCli(['serve'], env);
    try {
      const url = (await serve.waitFor(/^fleetsync dashboard: /)).split(' ')[2]!;
      const health = await fetch(`${url}healthz`);
      expect(health.status).toBe(503);
      const body = (await health.json()) as {
        reasons: string[];
        checks: { accounts: { account: string; unchanged_h: number | null }[] };
      };
      // The stale rule's clock is kept in the state file: it counts on with no run row written.
      expect(body.checks.accounts).toEqual([
        expect.objectContaining({ account: ACCOUNT, unchanged_h: expect.any(Number) }),
      ]);
      expect(body.reasons.join('\n')).toMatch(
        /account test: the last run .* failed \(not in the database\): .*ENOSPC/,
      );
      const api = (await (await fetch(`${url}api/status`)).json()) as {
        runs: { outcome: string }[];
        runs_outside_db: { run_id: string; outcome: string; reason: string }[];
        verdict: { exit_code: number };
      };
      // The database's own last run is still the good one; the run it does not show decides.
      expect(api.runs.map((r) => r.outcome)).toEqual(['ok']);
      expect(api.runs_outside_db).toEqual([
        expect.objectContaining({
          run_id: o.run_id,
          outcome: 'failed',
          reason: expect.stringMatching(/ENOSPC/),
        }),
      ]);
      expect(api.verdict.exit_code).toBe(1);
      const metrics = parsePrometheus(await (await fetch(`${url}metrics`)).text()).samples;
      expect(sample(metrics, 'fleetsync_last_run_unrecorded', { account: ACCOUNT })).toBe(1);
      expect(sample(metrics, 'fleetsync_last_run_outcome', { account: ACCOUNT, outcome: 'failed' })).toBe(1);
      expect(sample(metrics, 'fleetsync_alert_incidents_open', { account: ACCOUNT, incident: 'run' })).toBe(
        1,
      );
      // Whoever sent it, exactly one alert for the incident, naming the full disk.
      await expect.poll(() => hook.posts.length, { timeout: 10_000 }).toBe(1);
      expect(hook.posts[0]!.body.text).toMatch(/^fleetsync: the sync of account test failed: .*ENOSPC/);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  }, 180_000);
});
