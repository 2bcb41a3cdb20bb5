/**
 * `fleetsync export --format xlsx` and `--headers human` through the CLI (in process, on the
 * hand-filled database): the workbook and its manifest on disk, usage errors with exit 2.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import XLSX from 'xlsx';
import { runMain } from '../helpers/cli.ts';
import { ACCOUNT, ZONE, openFixture, parseCsv } from '../helpers/report-fixture.ts';

let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  const fx = await openFixture();
  dir = fx.dir;
  // the CLI opens the file itself
  fx.con.closeSync();
  fx.db.close();
  env = { FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: ZONE, FLEETSYNC_DB: join(dir, 'fleet.duckdb') };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const range = ['--from', '2026-03-01', '--to', '2026-04-30'];

describe('fleetsync export --format xlsx / --headers human', () => {
  it('writes a workbook with its manifest', async () => {
    const out = join(dir, 'tolls.xlsx');
    const r = await runMain(env, 'export', 'tolls', ...range, '--format', 'xlsx', '--out', out);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^wrote 3 rows of tolls/);
    const wb = XLSX.read(readFileSync(out), { type: 'buffer' });
    expect(wb.SheetNames).toEqual(['Report', 'About']);
    const rows = XLSX.utils.sheet_to_json(wb.Sheets.Report!, { header: 1 }) as unknown[][];
    expect(rows[0]!.slice(0, 3)).toEqual(['Registration', 'Vehicle ID', 'Department']);
    expect(rows).toHaveLength(1 + 3); // header and rows; tolls has no column whose total means something
    expect(JSON.parse(readFileSync(`${out}.manifest.json`, 'utf8'))).toMatchObject({
      format: 'xlsx',
      rows: 3,
    });
  });

  it('--headers human writes labels with units into the CSV', async () => {
    const out = join(dir, 'mileage-human.csv');
    const r = await runMain(env, 'export', 'mileage', ...range, '--headers', 'human', '--out', out);
    expect(r.code).toBe(0);
    expect(parseCsv(readFileSync(out, 'utf8').slice(1))[0]).toContain('Distance (km)');
  });

  it.each([
    [['--headers', 'fancy'], /--headers must be one of machine, human/],
    [['--format', 'xlsx', '--headers', 'human'], /--headers human is for --format csv/],
    [['--format', 'xls'], /--format must be one of csv, parquet, arrow, xlsx/],
  ])('%j → exit 2 naming the option', async (args, re) => {
    const out = join(dir, 'never.csv');
    const r = await runMain(env, 'export', 'mileage', ...range, ...args, '--out', out);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(re);
    expect(existsSync(out)).toBe(false);
  });
});
