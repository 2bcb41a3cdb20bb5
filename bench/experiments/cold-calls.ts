/**
 * The cold (first) call of dashboard reports, in process, on a seeded database: each report on a
 * freshly opened instance (serve's DuckDB settings), the page the dashboard asks for (the first
 * 1,000 rows, with the whole result's totals when it has more), wall and CPU (process.cpuUsage:
 * DuckDB's threads included) per call, `rounds` times alternating the reports.
 * `node --import tsx bench/experiments/cold-calls.ts <db.duckdb> <report,report> [rounds] [period]`
 * period: last_3_months (default) | full_year | both. Opens the file read-only: give it a copy.
 * PROFILE=1: also DuckDB's JSON profile of each statement, its 8 slowest operators listed (TOP=n: n).
 * SPLIT=1: a list report's page statement and its totals timed apart, each on a fresh instance
 * (the totals as runReport reads them: `pageTotals`).
 * ROWS=<dir>: also the whole result (every row, unpaged) written to <dir>/<report>-<period>.json, to
 * compare two versions of a report row for row (run this file from each checkout, then diff).
 * PAGES=<dir>: also the timed page (rows, count, totals) and pages at other offsets (OFFSETS, default
 * 1000,250000,1819500) written to <dir>/<report>-<period>-page<offset>.json, compared the same way.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseReportParams } from '../../src/reports/params.ts';
import { getReport } from '../../src/reports/registry.ts';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ReportParams } from '../../src/reports/params.ts';
import { queryName, type ReportDef } from '../../src/reports/registry.ts';
import * as run from '../../src/reports/run.ts';
import { bindings, prepareBound, prepareLookups, runReport } from '../../src/reports/run.ts';
import { prepareModelConnection } from '../../src/store/models.ts';
import { loadSql } from '../../src/store/queries.ts';
import { DEFAULT_PAGE_ROWS } from '../../src/server/report-routes.ts';
import { openDatabase, SERVING_DB } from '../../src/store/db.ts';
import { localDate } from '../../src/time.ts';
import { presets } from '../reports.ts';
import { ACCOUNT } from '../seed.ts';

const [dbPath = '', names = '', rounds = '3', period = 'last_3_months'] = process.argv.slice(2);
const sidecar = JSON.parse(readFileSync(`${dbPath}.json`, 'utf8')) as { nowMs: number; timezone: string };

interface ProfileNode {
  operator_name?: string;
  operator_timing?: number;
  operator_cardinality?: number;
  extra_info?: Record<string, unknown>;
  children?: ProfileNode[];
}
/**
 * The page's statement and the totals' (as runReport runs them), each profiled (DuckDB's JSON
 * profile, run again after the timed call): its 8 slowest operators.
 */
async function profile(con: DuckDBConnection, def: ReportDef, params: ReportParams): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-bench-prof-'));
  const values = { ...bindings(scope, params), page_limit: DEFAULT_PAGE_ROWS, page_offset: 0 };
  const sql = loadSql(queryName(def)).trim().replace(/;\s*$/, '');
  const statements = {
    page: `SELECT * FROM (\n${sql}\n) AS r LIMIT $page_limit OFFSET $page_offset`,
    totals: `SELECT count(*) FROM (\n${sql}\n) AS r`,
  };
  await prepareLookups(con, sql, values);
  try {
    await con.run(`PRAGMA enable_profiling = 'json'`);
    for (const [k, q] of Object.entries(statements)) {
      await con.run(`SET profiling_output = '${join(dir, k)}.json'`);
      const ps = await prepareBound(con, q, values);
      await ps.run();
    }
    await con.run(`PRAGMA disable_profiling`);
    return slowest(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The slowest operators of each profiled statement. */
function slowest(dir: string): string[] {
  const out: string[] = [];
  for (const f of readdirSync(dir).sort()) {
    const all: ProfileNode[] = [];
    const walk = (n: ProfileNode) => {
      all.push(n);
      for (const c of n.children ?? []) walk(c);
    };
    const root = JSON.parse(readFileSync(join(dir, f), 'utf8')) as ProfileNode & { latency?: number };
    walk(root);
    all.sort((a, b) => (b.operator_timing ?? 0) - (a.operator_timing ?? 0));
    out.push(`  statement ${f}: latency ${(root.latency ?? 0).toFixed(2)} s`);
    for (const n of all.slice(0, Number(process.env.TOP ?? 8)))
      out.push(
        `    ${n.operator_name} ${(n.operator_timing ?? 0).toFixed(3)} s, ${n.operator_cardinality} rows ${JSON.stringify(n.extra_info ?? {}).slice(0, 160)}`,
      );
  }
  return out;
}
/** The page statement alone, or the totals alone, on a fresh instance: wall and CPU. */
async function split(
  part: 'page' | 'totals',
  r: number,
  name: string,
  p: string,
  def: ReportDef,
  params: ReportParams,
) {
  const db = await openDatabase(dbPath, { ...SERVING_DB, readOnly: true });
  const con = await db.connect();
  try {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await prepareModelConnection(con);
    const values = bindings(scope, params);
    const sql = loadSql(queryName(def)).trim().replace(/;\s*$/, '');
    await prepareLookups(con, sql, values);
    let what: string;
    if (part === 'page') {
      const q = `SELECT * FROM (\n${sql}\n) AS r LIMIT $page_limit OFFSET $page_offset`;
      const ps = await prepareBound(con, q, { ...values, page_limit: DEFAULT_PAGE_ROWS, page_offset: 0 });
      what = `${(await ps.runAndReadAll()).getRowObjectsJS().length} rows`;
    } else {
      // this branch's totals of a page (facts where they apply); main's: sqlTotals
      const all = run as unknown as Record<string, typeof run.sqlTotals | undefined>;
      const totals = all.pageTotals ?? run.sqlTotals;
      const t = await totals(con, def, sql, values);
      what = `total ${t.total} ${JSON.stringify(t.totals)} blank ${JSON.stringify(t.totals_blank)}`;
    }
    const ms = performance.now() - t0;
    const c = process.cpuUsage(cpu0);
    console.log(
      `round ${r} ${name} ${p} ${part}: ${ms.toFixed(0)} ms, CPU ${((c.user + c.system) / 1000).toFixed(0)} ms, ${what}, load ${loadavg()[0]!.toFixed(1)}`,
    );
  } finally {
    con.closeSync();
    db.close();
  }
}
const scope = { account: ACCOUNT, zone: sidecar.timezone, nowMs: sidecar.nowMs };
const ranges = presets(localDate(sidecar.nowMs, sidecar.timezone));
const periods = period === 'both' ? Object.keys(ranges) : [period];
for (let r = 0; r < Number(rounds); r++)
  for (const p of periods)
    for (const name of names.split(',')) {
      const def = getReport(name);
      if (!def) throw new Error(`no report ${name}`);
      const range = ranges[p]!;
      const params = parseReportParams({ from: range.from, to: range.to }, def, scope);
      if (process.env.SPLIT) {
        for (const part of ['page', 'totals'] as const) await split(part, r, name, p, def, params);
        continue;
      }
      const db = await openDatabase(dbPath, { ...SERVING_DB, readOnly: true });
      const con = await db.connect();
      try {
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        const res = await runReport(con, def, scope, params, { limit: DEFAULT_PAGE_ROWS, offset: 0 });
        const ms = performance.now() - t0;
        const c = process.cpuUsage(cpu0);
        console.log(
          `round ${r} ${name} ${p}: ${ms.toFixed(0)} ms, CPU ${((c.user + c.system) / 1000).toFixed(0)} ms, ${res.rows.length} rows of ${res.total}, load ${loadavg()[0]!.toFixed(1)}`,
        );
        if (process.env.PROFILE) for (const l of await profile(con, def, params)) console.log(l);
        if (process.env.PAGES && r === 0)
          for (const offset of [
            0,
            ...(process.env.OFFSETS ?? '1000,250000,1819500').split(',').map(Number),
          ]) {
            const pg = await runReport(con, def, scope, params, { limit: DEFAULT_PAGE_ROWS, offset });
            writeFileSync(
              join(process.env.PAGES, `${name}-${p}-page${offset}.json`),
              JSON.stringify(pg, null, 1),
            );
          }
        if (process.env.ROWS && r === 0) {
          const all = await runReport(con, def, scope, params);
          writeFileSync(join(process.env.ROWS, `${name}-${p}.json`), JSON.stringify(all.rows, null, 1));
        }
      } finally {
        con.closeSync();
        db.close();
      }
    }
