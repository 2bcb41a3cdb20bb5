/**
 * The serving allocator (src/allocator.ts): a process that serves the dashboard (serve, demo) or
 * syncs (sync) gives DuckDB's freed memory back to the system at once; other commands, and an operator's own
 * DUCKDB_JE_MALLOC_CONF, keep jemalloc's options. The effect is shown on a real process: right
 * after a query whose hash table is ~100 MB, the serving process's RSS is back near where it
 * started, while a process with DuckDB's defaults still holds the freed pages.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ALLOCATOR = fileURLToPath(new URL('../src/allocator.ts', import.meta.url));

interface Run {
  applied: string;
  distinct: number;
  /** RSS with DuckDB open, before the query, MB. */
  beforeMb: number;
  /** RSS once the query has answered, MB. */
  afterMb: number;
}

/** A child that applies the allocator for `command` as src/cli.ts does, then loads DuckDB and runs one query. */
function run(command: string, env: Record<string, string>): Run {
  const script = `
    const { applyServingAllocator } = await import(${JSON.stringify(ALLOCATOR)});
    const applied = applyServingAllocator(${JSON.stringify(command)}, process.env);
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const rss = () => process.memoryUsage.rss() / 2 ** 20;
    const db = await DuckDBInstance.create(':memory:', { threads: '1' });
    const con = await db.connect();
    const beforeMb = rss();
    const r = await con.runAndReadAll(
      "SELECT count(*)::INTEGER AS n FROM (SELECT DISTINCT 'key-' || range AS k FROM range(2000000))",
    );
    const afterMb = rss();
    process.stdout.write(
      JSON.stringify({ applied: String(applied), distinct: r.getRowObjectsJS()[0].n, beforeMb, afterMb }),
    );
  `;
  const clean = { ...process.env };
  delete clean.DUCKDB_JE_MALLOC_CONF;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    env: { ...clean, ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out) as Run;
}

describe('the serving allocator', () => {
  it('returns a query’s freed memory at once in serve, unless the operator set jemalloc’s options', () => {
    const serve = run('serve', {});
    // the operator's own options, here DuckDB's defaults (what every other command runs with:
    // the second case below)
    const own = run('serve', { DUCKDB_JE_MALLOC_CONF: 'dirty_decay_ms:1000,muzzy_decay_ms:1000' });
    expect([serve.applied, own.applied]).toEqual(['dirty_decay_ms:0,muzzy_decay_ms:0', 'null']);
    // the same answer: 2,000,000 distinct keys
    expect([serve.distinct, own.distinct]).toEqual([2_000_000, 2_000_000]);
    // serve: the hash table's pages are gone once the query has answered
    expect(serve.afterMb - serve.beforeMb).toBeLessThan(30);
    // DuckDB's defaults: still held (115 MB when this was written)
    expect(own.afterMb - own.beforeMb).toBeGreaterThan(60);
  }, 120_000);

  it('is applied to serve, demo and sync only', async () => {
    const { applyServingAllocator } = await import('../src/allocator.ts');
    const env = (): Record<string, string | undefined> => ({});
    const cases = ['serve', 'demo', 'sync', 'worker', 'export', undefined].map((c) => {
      const e = env();
      return [applyServingAllocator(c, e), e.DUCKDB_JE_MALLOC_CONF ?? null];
    });
    expect(cases).toEqual([
      ['dirty_decay_ms:0,muzzy_decay_ms:0', 'dirty_decay_ms:0,muzzy_decay_ms:0'],
      ['dirty_decay_ms:0,muzzy_decay_ms:0', 'dirty_decay_ms:0,muzzy_decay_ms:0'],
      ['dirty_decay_ms:0,muzzy_decay_ms:0', 'dirty_decay_ms:0,muzzy_decay_ms:0'],
      [null, null],
      [null, null],
      [null, null],
    ]);
  });
});
