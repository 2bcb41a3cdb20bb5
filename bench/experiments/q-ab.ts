/**
 * Alternates named SQL variants (a file of `-- name` sections) on a fresh read-only instance per
 * run: wall and CPU of each. `node --import tsx bench/experiments/q-ab.ts <db> <variants.sql> [rounds]`
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { prepareModelConnection } from '../../src/store/models.ts';
import { openDatabase, SERVING_DB } from '../../src/store/db.ts';

const [dbPath = '', file = '', rounds = '3'] = process.argv.slice(2);
const variants = readFileSync(file, 'utf8')
  .split(/^-- name /m)
  .slice(1)
  .map((s) => {
    const [name, ...rest] = s.split('\n');
    return { name: name!.trim(), sql: rest.join('\n') };
  });
const only = process.env.ONLY?.split(',');
for (let r = 0; r < Number(rounds); r++)
  for (const v of variants) {
    if (only && !only.includes(v.name)) continue;
    const db = await openDatabase(dbPath, { ...SERVING_DB, readOnly: true });
    const con = await db.connect();
    await prepareModelConnection(con);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const res = await con.runAndReadAll(v.sql);
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    console.log(
      `${r} ${v.name.padEnd(14)} ${ms.toFixed(0)} ms CPU ${((c.user + c.system) / 1000).toFixed(0)} ms ${JSON.stringify(res.getRowsJS()[0], (_k, x) => (typeof x === 'bigint' ? Number(x) : x))} load ${loadavg()[0]!.toFixed(1)}`,
    );
    con.closeSync();
    db.close();
  }
