/**
 * `fleetsync sync --plan` creates and changes nothing: with no database yet it plans as for an
 * empty one and leaves no file (no database, no state file, no directory); with a database it
 * reads it and leaves it byte for byte as it was.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { runMain } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'fleetsync-plan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = (db: string) => ({ FLEETSYNC_DB: db, FLEET_TIMEZONE: 'Australia/Sydney' });
const range = ['--from', '2026-11-01', '--to', '2026-11-03'];

describe('sync --plan', () => {
  it('with no database: prints the plan and creates no file or directory', async () => {
    const r = await runMain(env(join(dir, 'new', 'fleet.duckdb')), 'sync', '--plan', ...range);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('plan for default: 2026-11-01 .. 2026-11-03 (local days, inclusive)');
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);

  it('with a database: the file is left as it was, and no state file appears beside it', async () => {
    const path = join(dir, 'old', 'fleet.duckdb');
    (await openDatabase(path)).close();
    const files = readdirSync(join(dir, 'old')).sort();
    const digest = () => createHash('sha256').update(readFileSync(path)).digest('hex');
    const [before, mtime] = [digest(), statSync(path).mtimeMs];
    const r = await runMain(env(path), 'sync', '--plan', ...range);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('plan for default:');
    expect(digest()).toBe(before);
    expect(statSync(path).mtimeMs).toBe(mtime);
    expect(readdirSync(join(dir, 'old')).sort()).toEqual(files);
  }, 60_000);

  it('with a database from an older version: says to upgrade it first, and leaves it as it was', async () => {
    const path = join(dir, 'older', 'fleet.duckdb');
    const db = await openDatabase(path);
    const con = await db.connect();
    // The newest migration's record removed: the file now reads as one an older version wrote.
    await con.run('DELETE FROM schema_migrations WHERE name = (SELECT max(name) FROM schema_migrations)');
    con.closeSync();
    db.close();
    const digest = () => createHash('sha256').update(readFileSync(path)).digest('hex');
    const before = digest();
    const r = await runMain(env(path), 'sync', '--plan', ...range);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/written by an older fleetsync \(1 upgrade\(s\) pending\)/);
    expect(r.stderr).toContain('fleetsync status');
    expect(digest()).toBe(before);
  }, 60_000);
});
