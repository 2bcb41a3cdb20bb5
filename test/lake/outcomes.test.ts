/**
 * The workers' job outcomes in the lake (src/lake/outcomes.ts), on a real directory: what each
 * record makes `serve --lake` say, at a fixed clock — a failed attempt (retrying or not), a
 * given-up job, an account that never published, a publish older than FLEETSYNC_STALE_HOURS (and
 * one just inside it), a good account (nothing). Records are written whole and survive a reread;
 * an unreadable record is skipped, not fatal.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectAccount, outcomeProblems, readOutcomes, recordJob } from '../../src/lake/outcomes.ts';

const dir = mkdtempSync(join(tmpdir(), 'fleetsync-outcomes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = Date.parse('2026-04-21T06:00:00Z');
const H = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const job = (
  id: string,
  outcome: 'ok' | 'failed' | 'dead',
  attempt: number,
  retrying: boolean,
  error: string | null,
) => ({
  id,
  outcome,
  attempt,
  retrying,
  error,
  ended_at: iso(NOW - H),
});

describe('job outcomes in the lake', () => {
  it('says per account what is wrong, and nothing for a good account', () => {
    recordJob(dir, 'fine', job('j1', 'ok', 1, false, null), iso(NOW - 47 * H)); // inside 48 h
    recordJob(dir, 'old', job('j2', 'ok', 1, false, null), iso(NOW - 49 * H)); // beyond 48 h
    recordJob(dir, 'flaky', job('j3', 'failed', 2, true, 'E_SYNC_PARTIAL: x'), iso(NOW - H));
    recordJob(dir, 'refused', job('j4', 'failed', 1, false, 'E_AUTH: y'));
    recordJob(dir, 'given-up', job('j5', 'dead', 4, false, 'E_CONFIG: z'), iso(NOW - 2 * H));
    expectAccount(dir, 'new');
    expectAccount(dir, 'fine'); // already recorded: left as it is
    writeFileSync(join(dir, '_jobs', 'broken.json'), '{ not json');

    const outcomes = readOutcomes(dir);
    expect(outcomes.map((o) => o.account)).toEqual(['fine', 'flaky', 'given-up', 'new', 'old', 'refused']);
    expect(outcomes.find((o) => o.account === 'fine')).toEqual({
      account: 'fine',
      published_at: iso(NOW - 47 * H),
      last_job: job('j1', 'ok', 1, false, null),
    });
    const at = iso(NOW - H);
    expect(outcomeProblems(outcomes, NOW, 48)).toEqual([
      `account flaky: the last job j3 failed (attempt 2, retrying) at ${at}: E_SYNC_PARTIAL: x`,
      `account given-up: the last job j5 was given up (dead-letter queue) at ${at}: E_CONFIG: z`,
      'account new: never published to the lake',
      'account old: stale: last published 49 h ago (FLEETSYNC_STALE_HOURS=48)',
      `account refused: the last job j4 failed (attempt 1, not retried) at ${at}: E_AUTH: y`,
      'account refused: never published to the lake',
    ]);
    // A later attempt keeps the last publish time; a new publish replaces it.
    recordJob(dir, 'flaky', job('j6', 'failed', 3, true, 'E_SYNC_PARTIAL: x'));
    expect(readOutcomes(dir).find((o) => o.account === 'flaky')?.published_at).toBe(iso(NOW - H));
    recordJob(dir, 'old', job('j7', 'ok', 1, false, null), iso(NOW));
    expect(outcomeProblems(readOutcomes(dir), NOW, 48).some((p) => p.startsWith('account old:'))).toBe(false);
    // Written whole: no temporary file is left beside the records.
    expect(readdirSync(join(dir, '_jobs')).filter((f) => !f.endsWith('.json'))).toEqual([]);
  });

  it('a lake without records: no problems', () => {
    const empty = mkdtempSync(join(tmpdir(), 'fleetsync-outcomes-empty-'));
    try {
      expect(readOutcomes(empty)).toEqual([]);
      expect(outcomeProblems(readOutcomes(empty), NOW, 48)).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
