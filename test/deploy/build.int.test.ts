/**
 * The build that installed processes run (scripts/build.ts → dist/, started by bin/fleetsync.js):
 * built into a copy of the checkout, its CLI syncs the simulator into the same database as the
 * sources do in this process, exports the same report byte for byte, and an edit of src/ after
 * the build runs the edited source (through tsx), never the stale build.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.ts';
import { diffTable, dumpDatabase } from '../helpers/dbdump.ts';
import { runCli } from '../helpers/cli-process.ts';
import { harnessCliEnv, startHarness, type Harness } from '../helpers/synced.ts';

const ROOT = join(import.meta.dirname, '..', '..');
let copy: string;
let h: Harness;

/** The built entry of the copy, as a unit starts it: `node bin/fleetsync.js …`. */
const fleetsync = (env: Record<string, string>, ...args: string[]) =>
  runCli(args, env, h.dir, [join(copy, 'bin', 'fleetsync.js')]);

const accountEnv = (dbPath: string) => harnessCliEnv(h, { FLEETSYNC_DB: dbPath });

beforeAll(async () => {
  // What `npm ci` has in a checkout: the files the package needs, its node_modules, then the build.
  copy = mkdtempSync(join(tmpdir(), 'fleetsync-build-'));
  for (const f of ['package.json', 'bin', 'scripts', 'src', 'queries', 'dashboard'])
    cpSync(join(ROOT, f), join(copy, f), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  const built = spawnSync('npm', ['run', '-s', 'build'], { cwd: copy, encoding: 'utf8' });
  expect(built.status, built.stderr).toBe(0);
  h = await startHarness({ fleet: { vehicles: 3, days: 20 }, realClock: true });
}, 60_000);
afterAll(async () => {
  await h?.close();
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe('the built CLI', () => {
  it('syncs into the database the sources make and exports the same report', async () => {
    const help = await fleetsync({}, '--help');
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^usage: fleetsync <command>/m);

    const reference = await h.sync();
    expect(reference.outcome).toBe('ok');
    h.db.close();
    // The simulator's rate window still counts the reference run's last requests.
    await new Promise((r) => setTimeout(r, 1_100));
    const dbPath = join(h.dir, 'built.duckdb');
    const range = ['--from', h.firstDay, '--to', h.lastDay];
    const sync = await fleetsync(accountEnv(dbPath), 'sync', ...range);
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stderr).not.toMatch(/through tsx/);
    const [built, sources] = [await dumpDatabase(dbPath), await dumpDatabase(h.dbPath)];
    for (const table of Object.keys(sources))
      expect(diffTable(built[table], sources[table]), table).toEqual({ onlyA: [], onlyB: [] });

    // A report (queries/ found from dist/), by the built CLI and by the sources in this process.
    const out = (name: string) => join(h.dir, name);
    const exp = await fleetsync(accountEnv(dbPath), 'export', 'mileage', ...range, '--out', out('built.csv'));
    expect(exp.code, exp.stderr).toBe(0);
    const ref = await runMain(
      accountEnv(h.dbPath),
      'export',
      'mileage',
      ...range,
      '--out',
      out('sources.csv'),
    );
    expect(ref.code, ref.stderr).toBe(0);
    const csv = readFileSync(out('built.csv'), 'utf8');
    expect(csv.split('\n').length).toBeGreaterThan(3);
    expect(csv).toBe(readFileSync(out('sources.csv'), 'utf8'));
  }, 90_000);

  it('still runs the build when a copy kept the files but not their times (an image layer)', async () => {
    // A layer's tar keeps whole seconds: every source's time moves, none of its contents.
    const src = join(copy, 'src');
    for (const path of readdirSync(src, { recursive: true }) as string[]) {
      const file = join(src, path);
      const s = statSync(file);
      if (s.isFile()) utimesSync(file, s.atime, new Date(Math.floor(s.mtimeMs / 1000) * 1000 - 2000));
    }
    const help = await fleetsync({}, '--help');
    expect(help).toMatchObject({ code: 0, stderr: '' });
  });

  it('runs src/ as edited, not the build made before the edit', async () => {
    const cli = join(copy, 'src', 'cli.ts');
    const usage = "'usage: fleetsync <command> [options]";
    const source = readFileSync(cli, 'utf8');
    expect(source).toContain(usage);
    writeFileSync(cli, source.replace(usage, "'usage (edited): fleetsync <command> [options]"));
    const help = await fleetsync({}, '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage \(edited\): fleetsync/m);
    expect(help.stderr).toMatch(/src\/ differs from the build in dist\/ \(npm run build\)/);

    // An edit that keeps the file's size: told apart by its contents.
    writeFileSync(cli, source.replace(usage, "'USAGE: fleetsync <command> [options]"));
    const same = await fleetsync({}, '--help');
    expect(same.stdout).toMatch(/^USAGE: fleetsync/m);
    expect(same.stderr).toMatch(/src\/ differs from the build in dist\//);

    rmSync(join(copy, 'dist'), { recursive: true });
    const none = await fleetsync({}, '--help');
    expect(none.stdout).toMatch(/^USAGE: fleetsync/m);
    expect(none.stderr).toMatch(/no build in dist\/ \(npm run build\)/);
  });
});
