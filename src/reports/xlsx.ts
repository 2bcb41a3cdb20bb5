/**
 * XLSX report files (exceljs, streaming WorkbookWriter: rows go to disk as DuckDB yields them, so
 * memory stays bounded for any report size). One "Report" sheet: human headers with units
 * (columns.ts), real numbers with each column's number format, real dates and date-times (the
 * account zone's wall time, as Excel date cells), identifiers as text, enum codes by their labels,
 * blank (unknown) as an empty cell — never 0 —, a frozen header row, an autofilter, widths by
 * column kind, and a totals row (SUBTOTAL formulas whose cached values are the sums the API's
 * `totals` give) only for the columns the registry marks `total`, with a row under it naming, per column, the unknown rows the total leaves out
 * ("partial: 3 rows unknown"). Text cells get the same
 * spreadsheet-formula neutralising as CSV (xl_text). An "About" sheet states what the manifest
 * holds: account, zone, range, complete through, the windows left out, generated at.
 */
import { listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import ExcelJS from 'exceljs';
import { loadSql } from '../store/queries.ts';
import { formatZoned, lastDayOfMonth } from '../time.ts';
import { humanHeader, type Presentation } from './columns.ts';
import { coverageStreamsOf, unavailableFor } from './needs.ts';
import { rangeNote, type ReportParams } from './params.ts';
import { getReport, type ReportDef } from './registry.ts';
import {
  bindings,
  describeColumns,
  prepareBound,
  reasonCodes,
  runReport,
  toJsonCell,
  type JsonCell,
  type ReportMeta,
  type ReportScope,
} from './run.ts';

type Shown = Presentation & { name: string; total?: boolean; labels?: Readonly<Record<string, string>> };

/**
 * A local wall time as the Date exceljs stores: exceljs writes a Date's UTC fields as the serial
 * number, so the local fields go into the UTC slots ("2026-04-05T02:30:00+10:00" → 02:30 that day).
 * The offset is dropped on purpose: spreadsheets have no zones, the About sheet names the zone.
 */
export function wallDate(text: string): Date | null {
  const m = /^(\d{4})-(\d{2})(?:-(\d{2}))?(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(text);
  if (!m) return null;
  const n = (i: number, d = 0) => (m[i] === undefined ? d : Number(m[i]));
  return new Date(Date.UTC(n(1), n(2) - 1, n(3, 1), n(4), n(5), n(6)));
}

const grouped = (places: number) => (places > 0 ? `#,##0.${'0'.repeat(places)}` : '#,##0');

/** The Excel number format of a column (undefined: a text cell). */
export function numberFormat(p: Presentation): string | undefined {
  switch (p.display) {
    case 'integer':
      return '#,##0';
    case 'decimal':
      return grouped(p.places ?? 2);
    case 'percent':
      return (p.places ?? 1) > 0 ? `0.${'0'.repeat(p.places ?? 1)}%` : '0%';
    case 'date':
      return 'yyyy-mm-dd';
    case 'datetime':
      return 'yyyy-mm-dd hh:mm';
    case 'month':
      return 'yyyy-mm';
    case 'duration':
      return '[h]:mm:ss';
    case 'boolean':
      // Excel shows a boolean cell as TRUE/FALSE whatever the format; LibreOffice applies the
      // format to it, and with none prints 1 and 0
      return '"Yes";"Yes";"No"';
    default:
      return undefined;
  }
}

/** Default widths by kind, widened to the header; text columns a little wider. */
function widthOf(p: Shown): number {
  const base: Record<string, number> = {
    integer: 10,
    decimal: 12,
    percent: 9,
    date: 11,
    datetime: 17,
    month: 9,
    duration: 10,
    id: 14,
    enum: 18,
    text: 22,
    boolean: 8,
  };
  // the API's geofence and driver ids are UUIDs (36 characters): shown whole, not cut off
  const uuid = /(^|_)(geofence|driver)_id$/.test(p.name) ? 38 : 0;
  return Math.min(60, Math.max(base[p.display] ?? 14, uuid, humanHeader(p).length + 2));
}

/** A value as the cell holds it: numbers, dates, text; null = unknown = no cell. */
export function cellValue(p: Shown, v: JsonCell): ExcelJS.CellValue {
  if (v === null || v === '') return null;
  switch (p.display) {
    case 'id':
      return String(v);
    case 'integer':
    case 'decimal':
    case 'percent':
      return typeof v === 'number' ? v : Number.isFinite(Number(v)) ? Number(v) : String(v);
    case 'duration':
      return typeof v === 'number' ? v / 86_400 : String(v);
    case 'date':
    case 'datetime':
    case 'month':
      return typeof v === 'string' ? (wallDate(v) ?? v) : v;
    case 'boolean':
      return typeof v === 'boolean' ? v : String(v);
    case 'enum':
      return p.labels?.[String(v)] ?? String(v);
    default:
      return typeof v === 'string' ? v : String(v);
  }
}

const colLetter = (i: number): string => {
  let s = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
};

/** What a totals row leaves out of a column: "partial: 3 rows unknown". */
export const partialNote = (n: number): string => `partial: ${n} row${n === 1 ? '' : 's'} unknown`;

export interface ExcludedSummary {
  windows: number;
  byReason: { reason: string; label: string; windows: number; hours: number }[];
}

const ODOMETER = ['odometer'];
const FUEL = ['fuel_consumed', 'fuel_level'];
/**
 * The streams whose left-out windows a report's figures rest on: the About sheet of a mileage
 * file lists the odometer windows left out of its distances, not a fuel counter that went down.
 * A report not named here (tolls, trips, carpool, utilisation, …) rests on none of them.
 */
const LEFT_OUT_STREAMS: Readonly<Record<string, readonly string[]>> = {
  mileage: ODOMETER,
  mileage_windows: ODOMETER,
  excluded_odometer_windows: ODOMETER,
  fuel: FUEL,
  fuel_windows: FUEL,
  excluded_fuel_windows: FUEL,
  fuel_reconciliation: FUEL,
  kpis: [...ODOMETER, ...FUEL],
  top_vehicles: [...ODOMETER, ...FUEL],
  costs: [...ODOMETER, ...FUEL],
  cost_departments: [...ODOMETER, ...FUEL],
  excluded_windows: [...ODOMETER, ...FUEL],
  // a trip on a day the odometer rule leaves out is listed, its km not counted
  logbook: ODOMETER,
  logbook_years: ODOMETER,
};

/** The streams whose left-out windows `report` rests on ([] for none). */
export const leftOutStreams = (report: string): readonly string[] => LEFT_OUT_STREAMS[report] ?? [];

/**
 * The windows left out of totals in the range (the excluded_windows report), by reason; only
 * those of `streams` when given.
 */
export async function excludedSummary(
  con: DuckDBConnection,
  scope: ReportScope,
  params: ReportParams,
  streams?: readonly string[],
): Promise<ExcludedSummary> {
  const def = getReport('excluded_windows')!;
  const all = (await runReport(con, def, scope, params)).rows;
  const rows = streams ? all.filter((r) => streams.includes(String(r.stream))) : all;
  const labels = Object.fromEntries((await reasonCodes(con)).map((r) => [r.code, r.label]));
  const by = new Map<string, { windows: number; hours: number }>();
  for (const r of rows) {
    const k = String(r.reason);
    const e = by.get(k) ?? { windows: 0, hours: 0 };
    e.windows++;
    e.hours += typeof r.span_h === 'number' ? r.span_h : 0;
    by.set(k, e);
  }
  return {
    windows: rows.length,
    byReason: [...by].map(([reason, e]) => ({
      reason,
      label: labels[reason] ?? reason,
      windows: e.windows,
      hours: Math.round(e.hours * 10) / 10,
    })),
  };
}

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const share = (n: number, of: number) =>
  `${(Math.round((n / of) * 1000) / 10).toLocaleString('en-GB', { maximumFractionDigits: 1 })} %`;

/** The first and last day of the whole local months a range touches (a month-grain report's range). */
function wholeMonths(p: ReportParams): { fromDay: string; toDay: string } {
  return { fromDay: `${p.fromDay.slice(0, 7)}-01`, toDay: lastDayOfMonth(p.toDay.slice(0, 7)) };
}

/**
 * The range's coverage in words, for the About sheet (issue 25, item 4), one line per stream the
 * report reads that is synced by day (needs.ts, coverageStreamsOf): "63 of 92 days synced; July
 * 2026 6.5 % (2 of 31 days)" — the ended days of the range (of the whole months it touches for a
 * report per month) on which one of the stream's ledger streams is synced and settled for the
 * selection (queries/reports/range_vehicle_coverage.sql, range_fleet_coverage.sql), the days still open for late data, and
 * each month not wholly synced. No line: the report reads no stream synced by day.
 */
export async function rangeCoverageText(
  con: DuckDBConnection,
  def: ReportDef,
  scope: ReportScope,
  params: ReportParams,
): Promise<{ stream: string; text: string }[]> {
  const range = /month/.test(def.grain) ? { ...params, ...wholeMonths(params) } : params;
  const streams = coverageStreamsOf(def.name);
  // the ledger streams' days: the per-vehicle ones in one query, each fleet-wide one on its own
  const rows: Record<string, unknown>[] = [];
  const read = async (query: string, extra: Record<string, DuckDBValue>) => {
    const ps = await prepareBound(con, loadSql(query), { ...bindings(scope, range), ...extra });
    rows.push(...(await ps.runAndReadAll()).getRowObjectsJS());
  };
  const perVehicle = streams.filter((s) => s.perVehicle).flatMap((s) => s.ledger);
  if (perVehicle.length)
    await read('reports/range_vehicle_coverage', { streams: listValue([...perVehicle]) });
  for (const s of streams.filter((x) => !x.perVehicle))
    for (const stream_name of s.ledger) await read('reports/range_fleet_coverage', { stream_name });
  return streams.map(({ stream, ledger }) => {
    const days = new Map<string, { synced: boolean; pulled: boolean }>();
    let ever = false;
    for (const r of rows.filter((x) => ledger.includes(String(x.stream)))) {
      ever ||= r.ever === true;
      const d = days.get(String(r.day)) ?? { synced: false, pulled: false };
      days.set(String(r.day), {
        synced: d.synced || r.synced === true,
        pulled: d.pulled || r.pulled === true,
      });
    }
    return {
      stream,
      text:
        days.size && !ever
          ? NEVER
          : coverageWords(
              range,
              [...days].sort(([a], [b]) => a.localeCompare(b)),
            ),
    };
  });
}

const NEVER =
  'never synced for this account: no window of it pulled (not synced yet, or no vehicle has it, as the EV energy of a fleet without electric vehicles)';

function coverageWords(range: ReportParams, days: [string, { synced: boolean; pulled: boolean }][]): string {
  if (days.length === 0) return `${range.fromDay} to ${range.toDay}: no day of it has ended yet`;
  const months = new Map<string, { days: number; synced: number; open: number }>();
  for (const [day, c] of days) {
    const m = months.get(day.slice(0, 7)) ?? { days: 0, synced: 0, open: 0 };
    months.set(day.slice(0, 7), {
      days: m.days + 1,
      synced: m.synced + (c.synced ? 1 : 0),
      open: m.open + (c.pulled && !c.synced ? 1 : 0),
    });
  }
  const all = [...months.values()];
  const total = all.reduce((n, m) => n + m.days, 0);
  const synced = all.reduce((n, m) => n + m.synced, 0);
  const open = all.reduce((n, m) => n + m.open, 0);
  const short = [...months]
    .filter(([, m]) => m.synced < m.days)
    .map(([period, m]) => {
      const [y, mo] = period.split('-').map(Number) as [number, number];
      return `${MONTH_NAMES[mo - 1]} ${y} ${share(m.synced, m.days)} (${m.synced} of ${m.days} days${m.open ? `, ${m.open} open` : ''})`;
    });
  return [
    `${synced} of ${total} days synced${synced === total ? ' (complete)' : ''}` +
      (open ? `, ${open} more pulled but still open for late data` : ''),
    ...short,
  ].join('; ');
}

/** The endpoints refused to the account that the report reads, and why, for the About sheet. */
export async function refusedText(
  con: DuckDBConnection,
  def: ReportDef,
  scope: ReportScope,
): Promise<string> {
  const refused = await unavailableFor(con, scope.account, def.name, scope.zone);
  if (!refused.length) return 'none: every endpoint this report reads answered';
  return refused
    .map(
      (e) =>
        `${e.endpoint}: ${e.text} (since ${e.since}, last asked ${e.last_probed}); ` +
        `what this report takes from it is blank (unknown) or as last synced (a list: geofences, drivers), never 0`,
    )
    .join('; ');
}

export interface XlsxContext {
  scope: ReportScope;
  params: ReportParams;
  meta: ReportMeta;
  /**
   * Lines stated on the sheet above the table (the logbook's vehicle, tax year, odometer and
   * business share: logbook.ts); the header row and the frozen pane move down under them.
   */
  preamble?: readonly string[];
}

/**
 * Writes `def` as an XLSX workbook to `path` (the caller renames it into place) and returns the
 * number of data rows. `select` is the report query with text columns already neutralised.
 */
export async function writeXlsx(
  con: DuckDBConnection,
  def: ReportDef,
  select: string,
  values: Record<string, DuckDBValue>,
  path: string,
  ctx: XlsxContext,
): Promise<number> {
  const cols = describeColumns(def, await reasonCodes(con)) as Shown[];
  const streams = leftOutStreams(def.name);
  const excluded = streams.length ? await excludedSummary(con, ctx.scope, ctx.params, streams) : null;
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({
    filename: path,
    useStyles: true,
    useSharedStrings: false,
  });
  wb.creator = 'fleetsync';
  // printed (or saved as PDF) landscape, every column on one page wide, as many pages down as
  // it takes: not a few columns per sheet of paper
  const preamble = ctx.preamble ?? [];
  // the preamble, then a blank row, then the table
  const top = preamble.length ? preamble.length + 1 : 0;
  const ws = wb.addWorksheet('Report', {
    views: [{ state: 'frozen', ySplit: top + 1 }],
    pageSetup: { orientation: 'landscape', fitToPage: true, fitToWidth: 1, fitToHeight: 0 },
  });
  ws.columns = cols.map((p) => {
    const numFmt = numberFormat(p);
    return { key: p.name, width: widthOf(p), ...(numFmt ? { style: { numFmt } } : {}) };
  });
  preamble.forEach((line, i) => {
    const row = ws.addRow(line ? [line] : []);
    if (i === 0) row.font = { bold: true };
    row.commit();
  });
  if (top) ws.addRow([]).commit();
  const header = ws.addRow(cols.map((p) => humanHeader(p)));
  header.font = { bold: true };
  header.commit();

  const sums = cols.map(() => 0);
  const known = cols.map(() => false);
  const blank = cols.map(() => 0);
  let rows = 0;
  const result = await (await prepareBound(con, select, values)).stream();
  for await (const chunk of result.yieldRowObjectJs()) {
    for (const r of chunk) {
      const row = ws.addRow(
        cols.map((p, i) => {
          const v = toJsonCell(r[p.name]);
          if (p.total && typeof v === 'number') {
            sums[i]! += v;
            known[i] = true;
          } else if (p.total && (v === null || v === '')) blank[i]!++;
          return cellValue(p, v);
        }),
      );
      row.commit();
      rows++;
    }
  }
  const first = top + 2;
  const last = top + rows + 1;
  if (cols.some((p) => p.total)) {
    // SUBTOTAL(109, …) follows the filter; its cached value is the sum over every row, as the
    // API's totals (rounded to 3 places the same way).
    const totals = ws.addRow(
      cols.map((p, i) => {
        if (i === 0 && !p.total) return 'Total';
        // a sum of unknowns is unknown: a blank cell, never 0
        if (!p.total || !known[i]) return null;
        const sum = Math.round(sums[i]! * 1000) / 1000;
        const result = p.display === 'duration' ? sum / 86_400 : sum;
        return { formula: `SUBTOTAL(109,${colLetter(i)}${first}:${colLetter(i)}${last})`, result };
      }),
    );
    totals.font = { bold: true };
    totals.commit();
    // a total over rows of which some are unknown covers only the others: the row under it says
    // so per column (issue 25), the number itself stays a number
    if (blank.some((n) => n > 0)) {
      const note = ws.addRow(
        cols.map((p, i) => {
          if (i === 0 && !p.total) return 'Not in the total';
          return p.total && blank[i]! > 0 ? partialNote(blank[i]!) : null;
        }),
      );
      note.font = { italic: true };
      note.commit();
    }
  }
  const partial = cols.filter((p, i) => p.total && blank[i]! > 0);
  ws.autoFilter = { from: { row: top + 1, column: 1 }, to: { row: last, column: cols.length } };
  ws.commit();

  const coverage = await rangeCoverageText(con, def, ctx.scope, ctx.params);
  const about = wb.addWorksheet('About');
  about.columns = [
    { key: 'k', width: 24 },
    { key: 'v', width: 70 },
  ];
  const p = ctx.params;
  const note = rangeNote(p, ctx.scope, ctx.meta.complete_through_text);
  const lines: [string, string | number][] = [
    ['Report', `${def.title} (${def.name})`],
    ['Account', ctx.scope.account],
    ['Time zone', `${ctx.meta.zone} (every time in this file is local time there)`],
    ['From', p.fromDay],
    ['To', p.toDay],
    ...(p.vehicle !== null ? [['Vehicle', String(p.vehicle)] as [string, string]] : []),
    ...(p.department !== null ? [['Department', p.department] as [string, string]] : []),
    ['Complete through', ctx.meta.complete_through_text],
    ...(coverage.length
      ? coverage.map((c): [string, string] => [`Coverage: ${c.stream}`, c.text])
      : [['Coverage', 'not applicable: this report reads no stream synced by day'] as [string, string]]),
    ['Endpoints refused', await refusedText(con, def, ctx.scope)],
    ...(note ? [['Range note', note] as [string, string]] : []),
    [
      'Windows left out',
      excluded === null
        ? 'not applicable: no figure of this report rests on odometer or fuel windows'
        : excluded.windows === 0
          ? 'none in this range'
          : `${excluded.windows} (${excluded.byReason.map((r) => `${r.label}: ${r.windows}, ${r.hours} h`).join('; ')})`,
    ],
    ...(preamble.length ? [['Above the table', preamble[0]!] as [string, string]] : []),
    ['Rows', rows],
    ['Blank cells', 'unknown (not synced, no reading, no price or tariff), never zero'],
    [
      'Totals',
      !cols.some((p) => p.total)
        ? 'none: no column of this report is summed'
        : partial.length === 0
          ? 'the totals row sums every row; no summed column has an unknown row'
          : `partial: the totals row sums the rows with a value; blank (unknown) rows are not in it. ` +
            `The row under it says how many per column: ${partial.map((p) => `${humanHeader(p)} ${partialNote(blank[cols.indexOf(p)]!)}`).join('; ')}`,
    ],
    [
      'Generated at',
      `${formatZoned(Date.parse(ctx.meta.generated_at), ctx.meta.zone)} (${ctx.meta.generated_at})`,
    ],
    ['Sync run', ctx.meta.run_id ?? 'none'],
  ];
  for (const [k, v] of lines) {
    const row = about.addRow([k, v]);
    row.getCell(1).font = { bold: true };
    row.commit();
  }
  about.commit();
  await wb.commit();
  return rows;
}
