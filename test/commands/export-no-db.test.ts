/**
 * `fleetsync export` where there is no database: it says which file it looked for (the full path
 * of the default data/fleet.duckdb in the current directory when FLEETSYNC_DB is not set, or of the
 * file FLEETSYNC_DB names) and how to point at another; exit 2, nothing created. The default: the
 * real CLI as a child process in an empty directory of its own (a relative path is that directory's).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.ts';
import { runCli } from '../helpers/cli-process.ts';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'fleetsync-nodb-')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('export without a database', () => {
  it('names the file it looked for, says it is the default, and how to point at another', async () => {
    const byDefault = await runCli(['export', 'mileage'], {}, dir);
    expect(byDefault.code).toBe(2);
    expect(byDefault.stderr).toContain(
      `no database at data/fleet.duckdb (${dir}/data/fleet.duckdb): FLEETSYNC_DB is not set, so this is its default, ` +
        `data/fleet.duckdb in the current directory (${dir}). Point FLEETSYNC_DB at the database to read`,
    );
    // a file FLEETSYNC_DB names (in this process: the path is whole)
    const path = join(dir, 'fleet-2026.duckdb');
    const named = await runMain({ FLEETSYNC_DB: path }, 'export', 'mileage');
    expect(named.code).toBe(2);
    expect(named.stderr).toContain(
      `no database at ${path}: the file FLEETSYNC_DB names. Point FLEETSYNC_DB at the database to read`,
    );
    expect(existsSync(join(dir, 'data'))).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);

  it('after `npm start` (only the demo database exists) it names the demo database and how to read it', async () => {
    const cwd = join(dir, 'after-demo');
    mkdirSync(join(cwd, 'data'), { recursive: true });
    writeFileSync(join(cwd, 'data', 'demo.duckdb'), '');
    const r = await runCli(['status'], {}, cwd);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `no database at data/fleet.duckdb (${cwd}/data/fleet.duckdb): FLEETSYNC_DB is not set, so this is its default, ` +
        `data/fleet.duckdb in the current directory (${cwd}). The demo's database (npm start) is data/demo.duckdb: ` +
        `set FLEETSYNC_DB=data/demo.duckdb to read it. Point FLEETSYNC_DB at the database to read`,
    );
    expect(readdirSync(join(cwd, 'data'))).toEqual(['demo.duckdb']);
  }, 60_000);
});
