/**
 * A table the schema no longer has (a migration dropped or renamed it) leaves the lake with the
 * account's next publish (src/lake/publish.ts). Before, its partitions stayed for ever: a reader
 * of the lake (Trino, Spark, `read_parquet` over the directory) saw the old table's rows beside the
 * renamed table's, and a dropped table's rows as if they were current.
 *
 * A real database made by the migrations, with a small table of its own added, renamed and dropped
 * as a migration would; the lake is read back from its directory listing and with DuckDB.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANIFEST_DIR, manifestFile, publishAccount } from '../../src/lake/publish.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';

let db: Database;
let con: DuckDBConnection;
let lake: string;
beforeAll(async () => {
  db = await openDatabase(':memory:');
  con = await db.connect();
  lake = mkdtempSync(join(tmpdir(), 'fleetsync-lake-gone-'));
  // two accounts, two months each
  await con.run('CREATE TABLE legacy_notes (account VARCHAR, day DATE, note VARCHAR)');
  await con.run(`INSERT INTO legacy_notes VALUES
    ('acme', DATE '2026-01-05', 'a1'), ('acme', DATE '2026-02-05', 'a2'),
    ('other', DATE '2026-01-07', 'o1'), ('other', DATE '2026-02-07', 'o2')`);
});
afterAll(() => {
  con?.closeSync();
  db?.close();
  if (lake) rmSync(lake, { recursive: true, force: true });
});

/** Every data file of the lake, relative to it, sorted. */
function dataFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }))
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.parquet')) out.push(relative(lake, join(dir, e.name)));
  };
  walk(lake);
  return out.sort();
}

/** The notes a reader of the lake directory finds under `table`, by account. */
async function notesIn(table: string): Promise<string[]> {
  if (!existsSync(join(lake, table))) return [];
  const r = await con.runAndReadAll(
    `SELECT account || ':' || note AS x FROM read_parquet('${join(lake, table, '*', '*', 'data.parquet')}',
       hive_partitioning = true) ORDER BY ALL`,
  );
  return r.getRowObjectsJS().map((row) => String(row.x));
}

const publish = (account: string) => publishAccount(con, account, lake);

describe('a table the schema no longer has', () => {
  it('renamed: the account publishing moves its partitions to the new name, the others keep theirs until their own publish', async () => {
    await publish('acme');
    await publish('other');
    expect(await notesIn('legacy_notes')).toEqual(['acme:a1', 'acme:a2', 'other:o1', 'other:o2']);

    await con.run('ALTER TABLE legacy_notes RENAME TO notes');
    const r = await publish('acme');
    expect(r.removed).toBe(2); // acme's two months of legacy_notes
    expect(await notesIn('notes')).toEqual(['acme:a1', 'acme:a2']);
    expect(await notesIn('legacy_notes')).toEqual(['other:o1', 'other:o2']);
    const manifest = JSON.parse(
      (await import('node:fs')).readFileSync(manifestFile(lake, 'acme'), 'utf8'),
    ) as { tables: Record<string, unknown> };
    expect(Object.keys(manifest.tables)).toContain('notes');
    expect(Object.keys(manifest.tables)).not.toContain('legacy_notes');

    await publish('other');
    expect(await notesIn('notes')).toEqual(['acme:a1', 'acme:a2', 'other:o1', 'other:o2']);
    expect(existsSync(join(lake, 'legacy_notes'))).toBe(false); // no account left in it
    expect(dataFiles().filter((f) => f.startsWith('legacy_notes/'))).toEqual([]);
  });

  it('dropped: its partitions go with each account publishing; nothing is left aside', async () => {
    await con.run('DROP TABLE notes');
    await publish('acme');
    expect(dataFiles().filter((f) => f.startsWith('notes/'))).toEqual([
      'notes/account=other/month=2026-01/data.parquet',
      'notes/account=other/month=2026-02/data.parquet',
    ]);
    await publish('other');
    expect(existsSync(join(lake, 'notes'))).toBe(false);
    expect(readdirSync(join(lake, MANIFEST_DIR)).filter((f) => !f.endsWith('.json'))).toEqual([]);
  });

  it('a table moved aside by a publish killed before its delete is gone after the next publish', async () => {
    const aside = join(lake, MANIFEST_DIR, '.0f0e-killed.removed', 'month=2026-01');
    mkdirSync(aside, { recursive: true });
    writeFileSync(join(aside, 'data.parquet'), 'left by a kill');
    await publish('acme');
    expect(readdirSync(join(lake, MANIFEST_DIR)).filter((f) => !f.endsWith('.json'))).toEqual([]);
  });

  it("leaves the lake's own directories and what is not an account's partitions alone", async () => {
    mkdirSync(join(lake, 'lost+found'), { recursive: true });
    mkdirSync(join(lake, 'exports', 'account=acme2', 'month=2026-01'), { recursive: true });
    writeFileSync(join(lake, 'exports', 'account=acme2', 'month=2026-01', 'data.parquet'), 'not ours');
    mkdirSync(join(lake, '_jobs'), { recursive: true });
    writeFileSync(join(lake, '_jobs', 'acme.json'), '{}');
    await publish('acme');
    expect(existsSync(join(lake, 'lost+found'))).toBe(true);
    expect(existsSync(join(lake, 'exports', 'account=acme2', 'month=2026-01', 'data.parquet'))).toBe(true);
    expect(existsSync(join(lake, '_jobs', 'acme.json'))).toBe(true);
  });
});
