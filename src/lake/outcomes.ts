/**
 * Each account's last job outcome and publish time, kept in the lake beside its tables:
 *
 *   <lake>/_jobs/<account>.json   { account, published_at, last_job: { … } | null }
 *
 * Workers write it (a file per account, written whole: temp name, then rename): for every
 * configured account at start (so an account that never published is known), after every job
 * attempt, and when a job is given up (dead-lettered). `serve --lake` reads it on every request,
 * so /healthz, /api/status and the account list show failed, stale and never-published accounts
 * — a failed job publishes nothing, so the lake's tables alone cannot show it.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobOutcome, LastJob } from './outcome-types.ts';

export type { JobOutcome, LastJob };

export const OUTCOMES_DIR = '_jobs';

const fileOf = (lakeDir: string, account: string) => join(lakeDir, OUTCOMES_DIR, `${account}.json`);

/** Writes a JSON file whole: a temporary name, then a rename over the file. */
export function writeWhole(path: string, value: unknown): void {
  const tmp = `${path}.${randomUUID()}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n');
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

export function readOutcome(lakeDir: string, account: string): JobOutcome | null {
  const f = fileOf(lakeDir, account);
  if (!existsSync(f)) return null;
  try {
    return JSON.parse(readFileSync(f, 'utf8')) as JobOutcome;
  } catch {
    return null; // unreadable: as if absent (the next write replaces it)
  }
}

/** Records that the account is expected in the lake (a no-op when it has a record already). */
export function expectAccount(lakeDir: string, account: string): void {
  mkdirSync(join(lakeDir, OUTCOMES_DIR), { recursive: true });
  if (readOutcome(lakeDir, account)) return;
  writeWhole(fileOf(lakeDir, account), { account, published_at: null, last_job: null } satisfies JobOutcome);
}

/** Records a job attempt's outcome (and, when `publishedAt` is given, the publish time). */
export function recordJob(lakeDir: string, account: string, job: LastJob, publishedAt?: string): void {
  mkdirSync(join(lakeDir, OUTCOMES_DIR), { recursive: true });
  const before = readOutcome(lakeDir, account);
  writeWhole(fileOf(lakeDir, account), {
    account,
    published_at: publishedAt ?? before?.published_at ?? null,
    last_job: job,
  } satisfies JobOutcome);
}

/** Every account's record, sorted by account. */
export function readOutcomes(lakeDir: string): JobOutcome[] {
  const dir = join(lakeDir, OUTCOMES_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => readOutcome(lakeDir, f.slice(0, -'.json'.length)))
    .filter((o): o is JobOutcome => o !== null)
    .sort((a, b) => a.account.localeCompare(b.account));
}

/**
 * Why the lake is not healthy, per account: the last job failed or was given up, the account never
 * published, or its last publish is older than `staleHours`.
 */
export function outcomeProblems(outcomes: JobOutcome[], nowMs: number, staleHours: number): string[] {
  const out: string[] = [];
  for (const o of outcomes) {
    const j = o.last_job;
    if (j && j.outcome !== 'ok')
      out.push(
        `account ${o.account}: the last job ${j.id} ${j.outcome === 'dead' ? 'was given up (dead-letter queue)' : `failed (attempt ${j.attempt}${j.retrying ? ', retrying' : ', not retried'})`} at ${j.ended_at}: ${j.error ?? 'no error recorded'}`,
      );
    if (o.published_at === null) out.push(`account ${o.account}: never published to the lake`);
    else {
      const age = nowMs - Date.parse(o.published_at);
      if (age > staleHours * 3_600_000)
        out.push(
          `account ${o.account}: stale: last published ${Math.floor(age / 3_600_000)} h ago (FLEETSYNC_STALE_HOURS=${staleHours})`,
        );
    }
  }
  return out;
}
