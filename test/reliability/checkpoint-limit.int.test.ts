/**
 * A database file that cannot grow, as a user meets it: `fleetsync sync` (a real child process)
 * under `ulimit -f 1024` (1 MiB per file). The commits reach the write-ahead log, the checkpoint
 * cannot write the file: the run says so (cause and fix) and exits 5, not "OK" and 0 as before.
 * The failure is kept in the state file: `fleetsync serve` (under the same limit) shows it in
 * GET /api/status (the banner's and `status`'s verdict, exit 5) and /healthz (503, "degraded").
 * Without the limit the next run checkpoints, exits 0 and clears it.
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { addDays } from '../../src/time.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_NOT_CHECKPOINTED } from '../../src/store/checkpoint.ts';
import type { StatusAnswer } from '../../src/server/api-types.ts';
import { readOutcomes } from '../../src/outcome/outcomes.ts';
import { CLI, cliEnv, runCli } from '../helpers/cli-process.ts';
import { parsePrometheus, sample } from '../helpers/receivers.ts';
import { harnessCliEnv, startHarness, type Harness } from '../helpers/synced.ts';

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** The CLI under a file-size limit of `kib` KiB (the shell's ulimit -f counts 1024-byte blocks). */
function spawnWithFileLimit(kib: number, args: string[], env: Record<string, string>) {
  const child = spawn(
    'sh',
    ['-c', `ulimit -f ${kib} && exec "$@"`, 'sh', process.execPath, '--import', TSX, CLI, ...args],
    {
      env: cliEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  const seen: (() => void)[] = [];
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
    for (const f of seen) f();
  });
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  /** The first match of `re` in what the child printed (rejects if it exits first). */
  const waitFor = (re: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const look = () => {
        const m = re.exec(stdout);
        if (m) resolve(m);
      };
      seen.push(look);
      look();
      void exited.then((r) => reject(new Error(`exited ${r.code}: ${r.stderr}`)));
    });
  return { child, exited, waitFor };
}

const cliWithFileLimit = (kib: number, args: string[], env: Record<string, string>) =>
  spawnWithFileLimit(kib, args, env).exited;

/** `fleetsync serve` under a file-size limit: its /api/status and /healthz, then stopped. */
async function serveSays(kib: number, env: Record<string, string>) {
  const serve = spawnWithFileLimit(kib, ['serve'], { ...env, FLEETSYNC_PORT: '0' });
  try {
    const url = (await serve.waitFor(/fleetsync dashboard: (\S+)/))[1]!;
    const status = (await (await fetch(new URL('/api/status', url))).json()) as StatusAnswer;
    const health = await fetch(new URL('/healthz', url));
    const metrics = parsePrometheus(await (await fetch(new URL('/metrics', url))).text()).samples;
    return {
      status,
      checkpointFailed: sample(metrics, 'fleetsync_checkpoint_failed', {}),
      healthCode: health.status,
      health: (await health.json()) as { status: string; reasons: string[] },
    };
  } finally {
    serve.child.kill('SIGTERM');
    const end = await serve.exited;
    expect(end.code, end.stderr).toBe(0);
  }
}

let h: Harness;
let env: Record<string, string>;
beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 5, days: 20 }, realClock: true });
  env = harnessCliEnv(h, { FLEETSYNC_DB: join(h.dir, 'limited.duckdb') });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe('a database file that cannot grow (ulimit -f)', () => {
  it('the sync says the checkpoint failed, why and what to do, and exits 5; the next run without the limit exits 0', async () => {
    const db = env.FLEETSYNC_DB!;
    const limited = await cliWithFileLimit(
      1024,
      ['sync', '--from', h.firstDay, '--to', addDays(h.firstDay, 2)],
      env,
    );
    expect(limited.code, limited.stderr).toBe(EXIT_NOT_CHECKPOINTED);
    expect(EXIT_NOT_CHECKPOINTED).toBe(5);
    expect(limited.stderr).toContain(`warning: the database file ${db} could not grow`);
    expect(limited.stderr).toMatch(/File too large/);
    expect(limited.stderr).toContain(`kept in the write-ahead log ${db}.wal`);
    expect(limited.stderr).toMatch(/free space on its disk or raise the file-size limit/);
    expect(statSync(db).size).toBeLessThanOrEqual(1 << 20); // the file stopped at the limit
    expect(statSync(`${db}.wal`).size).toBeGreaterThan(0); // the data are there

    // status, still under the limit: not "ok" while the file lacks what the log holds
    const status = await cliWithFileLimit(1024, ['status'], env);
    expect(status.code, status.stderr).toBe(EXIT_NOT_CHECKPOINTED);
    expect(status.stderr).toContain(`warning: the database file ${db} could not grow`);

    // serve, still under the limit: /api/status (what the banner and `status` show) and /healthz
    // say it until a checkpoint succeeds; the runs named are the ones the .wal holds
    const limitedServe = await serveSays(1024, env);
    expect(limitedServe.status.verdict.exit_code).toBe(EXIT_NOT_CHECKPOINTED);
    const said = limitedServe.status.verdict.problems.find((p) => p.includes('checkpoint failed'));
    expect(said).toContain(`could not grow`);
    expect(said).toContain(`kept in the write-ahead log ${db}.wal`);
    const runId = /^run (\S+):/m.exec(limited.stdout)?.[1];
    expect(limitedServe.status.checkpoint?.runs.map((r) => r.run_id)).toContain(runId);
    expect(limitedServe.healthCode).toBe(503);
    expect(limitedServe.health.status).toBe('degraded');
    expect(limitedServe.health.reasons.join('\n')).toMatch(
      /database file: the last checkpoint failed: .*could not grow/,
    );
    expect(limitedServe.checkpointFailed).toBe(1);
    expect(readOutcomes(db).checkpoint?.problem).toContain('could not grow');

    const free = await runCli(['sync', '--from', h.firstDay, '--to', h.lastDay], env);
    expect(free.code, free.stderr).toBe(0);
    expect(free.stderr).not.toContain('could not grow');
    expect(statSync(db).size).toBeGreaterThan(1 << 20);
    const fine = await runCli(['status'], env);
    expect(fine.code, fine.stderr).toBe(0);
    expect(fine.stderr).not.toContain('could not grow');
    // the state file no longer keeps the failure (what serve, /healthz and the banner read)
    expect(readOutcomes(db).checkpoint).toBeNull();
  }, 120_000);
});
