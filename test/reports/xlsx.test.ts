/**
 * XLSX exports read back with SheetJS (an independent reader): for every report, each cell's
 * type and value against the CSV export of the same report (dates as date cells showing the local
 * wall time, numbers as numbers, identifiers as text, enums by label, blank = no cell), the totals
 * row against the API's totals, and the About sheet against the manifest.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import XLSX from 'xlsx';
import { humanHeader } from '../../src/reports/columns.ts';
import { exportReport } from '../../src/reports/export.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { REPORT_NAMES } from '../../src/reports/registry.ts';
import {
  describeColumns,
  reasonCodes,
  requireReport,
  resolveZone,
  runReport,
  type MetaCache,
  type ReportScope,
} from '../../src/reports/run.ts';
import { ACCOUNT, NOW, ZONE, openFixture, parseCsv, type FixtureDb } from '../helpers/report-fixture.ts';

let fx: FixtureDb;
let scope: ReportScope;
/**
 * The fixture's "complete through", computed once for the file as the server keeps it (its key is
 * the data version, and nothing here writes): every export asked it again (a third of their CPU).
 */
const metaCache: MetaCache = new Map();

beforeAll(async () => {
  fx = await openFixture();
  scope = { account: ACCOUNT, zone: await resolveZone(fx.con, ACCOUNT, 'UTC'), nowMs: NOW };
});
afterAll(() => fx?.close());

const RANGE = { from: '2026-03-01', to: '2026-04-30' };

async function both(name: string, raw: Record<string, string> = RANGE) {
  const def = requireReport(name);
  const params = parseReportParams(
    def.extra.includes('grain') ? { ...raw, grain: 'month' } : raw,
    def,
    scope,
  );
  const xlsxPath = join(fx.dir, `${name}.xlsx`);
  const csvPath = join(fx.dir, `${name}.csv`);
  const res = await exportReport(fx.con, def, scope, params, 'xlsx', xlsxPath, { metaCache });
  // the CSV gives the cells the workbook must hold; its manifest is csv-export's test
  await exportReport(fx.con, def, scope, params, 'csv', csvPath, { manifest: false, metaCache });
  const [header, ...csv] = parseCsv(readFileSync(csvPath, 'utf8').slice(1));
  const wb = XLSX.read(readFileSync(xlsxPath), { type: 'buffer', cellNF: true, cellFormula: true });
  const api = await runReport(fx.con, def, scope, params);
  const cols = describeColumns(def, await reasonCodes(fx.con));
  return { def, res, header: header!, csv, wb, api, cols, xlsxPath };
}

/** The row (0-based) whose first cell reads `text`: where a sheet's table header is. */
function headerRowOf(ws: XLSX.WorkSheet, text: string): number {
  for (let r = 0; r < 200; r++) if (ws[XLSX.utils.encode_cell({ r, c: 0 })]?.v === text) return r;
  return -1;
}

/** "2026-04-01T11:00:00+11:00" → "2026-04-01 11:00" (the wall time a date-time cell must show). */
const wall = (iso: string) => iso.slice(0, 16).replace('T', ' ');

describe('XLSX export read back with SheetJS', () => {
  it.each(REPORT_NAMES)(
    '%s: every cell typed as its column says, values equal the CSV export',
    async (name) => {
      const { header, csv, wb, cols, res, api } = await both(name);
      expect(wb.SheetNames).toEqual(['Report', 'About']);
      const ws = wb.Sheets.Report!;
      // the logbook states its vehicle-years above the table (logbook.ts); every other table starts at row 1
      const top = name === 'logbook' ? headerRowOf(ws, humanHeader(cols[0]!)) : 0;
      if (name === 'logbook') expect(top).toBeGreaterThan(0);
      expect(header).toEqual(cols.map((c) => c.name));
      cols.forEach((c, j) => {
        expect(ws[XLSX.utils.encode_cell({ r: top, c: j })]?.v).toBe(humanHeader(c));
      });
      expect(res.rows).toBe(csv.length);
      csv.forEach((row, i) => {
        cols.forEach((c, j) => {
          const cell = ws[XLSX.utils.encode_cell({ r: top + i + 1, c: j })];
          const want = row[j]!;
          const where = `${name} row ${i + 1} ${c.name}`;
          if (want === '') {
            expect(cell?.v, `${where}: blank stays blank`).toBeUndefined();
            return;
          }
          expect(cell, where).toBeDefined();
          switch (c.display) {
            case 'id':
            case 'text':
              expect([cell!.t, cell!.v], where).toEqual(['s', want]);
              break;
            case 'enum':
              expect([cell!.t, cell!.v], where).toEqual(['s', c.labels?.[want] ?? want]);
              break;
            case 'integer':
            case 'decimal':
            case 'percent':
              expect(cell!.t, where).toBe('n');
              expect(cell!.v, where).toBeCloseTo(Number(want), 9);
              break;
            case 'duration':
              expect(cell!.t, where).toBe('n');
              expect((cell!.v as number) * 86_400, where).toBeCloseTo(Number(want), 6);
              expect(cell!.z, where).toBe('[h]:mm:ss');
              break;
            case 'boolean':
              expect([cell!.t, cell!.v], where).toEqual(['b', want === 'true']);
              break;
            case 'datetime':
              expect(cell!.t, where).toBe('n');
              expect(XLSX.SSF.is_date(String(cell!.z)), where).toBe(true);
              expect(cell!.w, where).toBe(wall(want));
              break;
            case 'date':
              expect(cell!.t, where).toBe('n');
              expect(cell!.w, where).toBe(want);
              break;
            case 'month':
              expect(cell!.t, where).toBe('n');
              expect(cell!.w, where).toBe(want.slice(0, 7));
              break;
          }
        });
      });
      // A totals row only where the registry marks totals; its values are the API's totals.
      const totalCols = cols.filter((c) => c.total);
      const totalsRow = top + csv.length + 1;
      const range = XLSX.utils.decode_range(ws['!ref']!);
      // under the totals, a row naming the unknown rows of each partial total (issue 25)
      const partial = totalCols.filter((c) => (api.totals_blank[c.name] ?? 0) > 0);
      expect(range.e.r).toBe(totalCols.length ? totalsRow + (partial.length ? 1 : 0) : top + csv.length);
      cols.forEach((c, j) => {
        if (!c.total) return;
        const n = api.totals_blank[c.name] ?? 0;
        const note = ws[XLSX.utils.encode_cell({ r: totalsRow + 1, c: j })]?.v;
        expect(note, `${name} note ${c.name}`).toBe(
          n > 0 ? `partial: ${n} row${n === 1 ? '' : 's'} unknown` : undefined,
        );
      });
      expect(ws['!autofilter']?.ref).toBe(
        XLSX.utils.encode_range({ s: { r: top, c: 0 }, e: { r: top + csv.length, c: cols.length - 1 } }),
      );
      cols.forEach((c, j) => {
        const cell = ws[XLSX.utils.encode_cell({ r: totalsRow, c: j })];
        if (!c.total) return;
        if (api.totals[c.name] === null) {
          // nothing known in the column: the total is blank, never 0
          expect(cell?.v, `${name} total ${c.name}`).toBeUndefined();
          return;
        }
        expect(cell?.f, `${name} total ${c.name}`).toMatch(/^SUBTOTAL\(109,/);
        const v = (cell!.v as number) * (c.display === 'duration' ? 86_400 : 1);
        expect(v, `${name} total ${c.name}`).toBeCloseTo(api.totals[c.name]!, 6);
      });
    },
  );

  it('identifiers stay text, formula-like text is neutralised as in CSV, times are local wall times', async () => {
    const { wb, cols } = await both('trips', { month: '2026-04' });
    const ws = wb.Sheets.Report!;
    const at = (r: number, name: string) =>
      ws[XLSX.utils.encode_cell({ r, c: cols.findIndex((c) => c.name === name) })];
    expect(at(1, 'start_location')?.v).toBe('\'=HYPERLINK("http://x")');
    expect(at(1, 'start_location')?.f).toBeUndefined();
    expect(at(1, 'start_time')?.w).toBe('2026-04-01 11:00');
    expect(at(2, 'registration')?.v).toBe("'=cmd()");
    expect(at(1, 'vehicle_id')?.t).toBe('s');
    expect(at(1, 'trip_id')?.t).toBe('s');
    expect(at(2, 'end_odometer_km')).toBeUndefined();
    // Real date cells for a reader that converts them.
    const dated = XLSX.read(readFileSync(join(fx.dir, 'trips.xlsx')), { type: 'buffer', cellDates: true });
    expect(
      dated.Sheets.Report![
        XLSX.utils.encode_cell({ r: 1, c: cols.findIndex((c) => c.name === 'start_time') })
      ]?.t,
    ).toBe('d');
  });

  it('frozen header row, and an About sheet with the manifest facts', async () => {
    const { wb, xlsxPath } = await both('mileage');
    const manifest = JSON.parse(readFileSync(`${xlsxPath}.manifest.json`, 'utf8'));
    expect(manifest).toMatchObject({ report: 'mileage', format: 'xlsx', zone: ZONE, run_id: 'run-2' });
    const about = Object.fromEntries(
      (XLSX.utils.sheet_to_json(wb.Sheets.About!, { header: 1 }) as string[][]).map((r) => [r[0], r[1]]),
    );
    expect(about.Account).toBe(ACCOUNT);
    expect(about['Time zone']).toContain(ZONE);
    expect(about.From).toBe('2026-03-01');
    expect(about.To).toBe('2026-04-30');
    expect(about['Complete through']).toBe(manifest.complete_through_text);
    expect(about['Generated at']).toContain(manifest.generated_at);
    const excluded = (
      await runReport(
        fx.con,
        requireReport('excluded_windows'),
        scope,
        parseReportParams(RANGE, requireReport('excluded_windows'), scope),
      )
    ).rows;
    // a mileage file lists the odometer windows left out of its distances, not the fuel ones
    const odometer = excluded.filter((r) => r.stream === 'odometer');
    expect(odometer.length).toBeGreaterThan(0);
    expect(excluded.length).toBeGreaterThan(odometer.length);
    expect(about['Windows left out']).toMatch(new RegExp(`^${odometer.length} \\(`));
    expect(about['Windows left out']).not.toMatch(/counter/);
    const files = XLSX.read(readFileSync(xlsxPath), { type: 'buffer', bookFiles: true }) as unknown as {
      files: Record<string, { content: Buffer | Uint8Array }>;
    };
    const sheetXml = Buffer.from(files.files['xl/worksheets/sheet1.xml']!.content).toString('utf8');
    expect(sheetXml).toMatch(/<pane[^>]*ySplit="1"[^>]*state="frozen"/);
    // printed or saved as PDF: landscape, all columns one page wide (not four columns a page)
    expect(sheetXml).toMatch(/<pageSetUpPr[^>]*fitToPage="1"/);
    expect(sheetXml).toMatch(/<pageSetup[^>]*orientation="landscape"/);
    expect(sheetXml).toMatch(
      /<pageSetup[^>]*fitToWidth="1"[^>]*fitToHeight="0"|<pageSetup[^>]*fitToHeight="0"[^>]*fitToWidth="1"/,
    );
    // a yes/no column reads Yes/No where the format applies (LibreOffice), never 1/0
    const complete = wb.Sheets.Report![XLSX.utils.encode_cell({ r: 1, c: 6 })];
    expect(complete?.t).toBe('b');
    expect(complete?.z).toBe('"Yes";"Yes";"No"');
  });

  it('CSV with human headers: labels with units, same cells; machine headers stay the default', async () => {
    const def = requireReport('mileage');
    const params = parseReportParams(RANGE, def, scope);
    const human = join(fx.dir, 'mileage-human.csv');
    const machine = join(fx.dir, 'mileage-machine.csv');
    await exportReport(fx.con, def, scope, params, 'csv', human, { headers: 'human' });
    await exportReport(fx.con, def, scope, params, 'csv', machine);
    const [hh, ...hrows] = parseCsv(readFileSync(human, 'utf8').slice(1));
    const [mh, ...mrows] = parseCsv(readFileSync(machine, 'utf8').slice(1));
    expect(mh).toEqual(def.columns.map((c) => c.name));
    expect(hh).toEqual([
      'Registration',
      'Vehicle ID',
      'Department',
      'Period',
      'Distance (km)',
      'Windows left out',
      'Month complete',
      'Time zone',
      'Coverage',
      'Covered (share, 0–1)', // the cell holds 0.5, not 50
    ]);
    expect(hrows).toEqual(mrows);
  });
});
