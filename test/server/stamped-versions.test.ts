/**
 * The data version asked again only when the database's files changed (fileStamp,
 * createStampedVersions): on a real DuckDB file, a version kept while nothing was written is
 * answered without the query; every commit (and a checkpoint) is seen; a file written less than
 * SETTLED_MS ago, and an in-memory database, are always asked; callers that ask while the same
 * question's query runs share it only when nothing was written since it began (filesWritten).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createStampedVersions, filesWritten, fileStamp, SETTLED_MS } from '../../src/server/report-cache.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';

const dirs: string[] = [];
const dbs: Database[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function fileDb() {
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-stamp-'));
  dirs.push(dir);
  const db = await openDatabase(join(dir, 'f.duckdb'));
  dbs.push(db);
  const con = await db.connect();
  await con.run('CREATE TABLE t (n INTEGER)');
  return { db, con };
}

describe('versions kept while the database files are unchanged', () => {
  it('asks once while nothing is written; a commit, a checkpoint, each is a new version', async () => {
    const { db, con } = await fileDb();
    // The real clock is moved past SETTLED_MS by hand, so no test waits for it.
    let ahead = 0;
    const versions = createStampedVersions(fileStamp(db.path, () => Date.now() + ahead));
    let asked = 0;
    const version = () =>
      versions('a', async () => {
        asked++;
        const r = await con.runAndReadAll('SELECT count(*)::INTEGER AS n FROM t');
        return String(r.getRowObjectsJS()[0]!.n);
      });
    ahead = SETTLED_MS + 1000;
    expect(await version()).toBe('0');
    expect(await version()).toBe('0');
    expect(await version()).toBe('0');
    expect(asked).toBe(1);

    await con.run('INSERT INTO t VALUES (1)');
    expect(await version()).toBe('1');
    expect(asked).toBe(2);
    expect(await version()).toBe('1');
    expect(asked).toBe(2);

    await con.run('INSERT INTO t VALUES (2)');
    await con.run('CHECKPOINT');
    expect(await version()).toBe('2');
    await con.run('INSERT INTO t VALUES (3)');
    expect(await version()).toBe('3');
    expect(asked).toBe(4);
    con.closeSync();
  });

  it('a file written less than SETTLED_MS ago is asked every time, and so is an in-memory database', async () => {
    const { db, con } = await fileDb();
    await con.run('INSERT INTO t VALUES (1)');
    expect(fileStamp(db.path)()).toBeNull(); // just written
    expect(fileStamp(db.path, () => Date.now() + SETTLED_MS + 1000)()).not.toBeNull();
    const versions = createStampedVersions(fileStamp(db.path));
    let asked = 0;
    for (let i = 0; i < 3; i++) await versions('a', async () => String(++asked));
    expect(asked).toBe(3);
    const memory = createStampedVersions(fileStamp(':memory:', () => Date.now() + 1e9));
    for (let i = 0; i < 3; i++) await memory('a', async () => String(++asked));
    expect(asked).toBe(6);
    con.closeSync();
  });

  it('a just-written file: callers share the query running since the last write, never one begun before it', async () => {
    const { db, con } = await fileDb();
    await con.run('INSERT INTO t VALUES (1)');
    const versions = createStampedVersions(fileStamp(db.path), filesWritten(db.path));
    expect(fileStamp(db.path)()).toBeNull(); // just written: no version is kept
    let asked = 0;
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const count = () =>
      versions('a', async () => {
        asked++;
        await gate; // the query is still running when the next callers ask
        const r = await con.runAndReadAll('SELECT count(*)::INTEGER AS n FROM t');
        return String(r.getRowObjectsJS()[0]!.n);
      });
    const first = count();
    const second = count(); // nothing written since the first began: it shares the first's query
    await con.run('INSERT INTO t VALUES (2)');
    const third = count(); // written since: its own query, which sees the new row
    open();
    expect(await Promise.all([first, second, third])).toEqual(['2', '2', '2']);
    expect(asked).toBe(2);
    // all settled: the next caller asks again (the file is still unsettled, nothing is kept)
    expect(await count()).toBe('2');
    expect(asked).toBe(3);
    con.closeSync();
  });
});
