/**
 * Runs a report's named query with bound parameters and returns JSON-safe rows. Every report
 * connection first gets the report macros and the model layer (src/store/models.ts): the business
 * rules the reports select from, each written once.
 */
import type { ColumnInfo, ReasonCodeInfo, ReportMeta, ReportSettings } from '../server/api-types.ts';
import { presentation } from './columns.ts';
import {
  listValue,
  timestampTZValue,
  type DuckDBConnection,
  type DuckDBPreparedStatement,
  type DuckDBValue,
} from '@duckdb/node-api';
import {
  DEFAULT_FUEL_DROP_L,
  DEFAULT_TAX_YEAR_START,
  DEFAULT_FUEL_OUTLIER_PCT,
  DEFAULT_SCORE_MIN_KM,
  DEFAULT_SCORE_WEIGHTS,
  FUEL_DROP_MAX_MINUTES,
  SERVICE_FORECAST_DAYS,
  SERVICE_FORECAST_MIN_DAYS,
  type ScoreWeights,
} from '../defaults.ts';
import { FleetsyncError } from '../errors.ts';
import { prepareModelConnection } from '../store/models.ts';
import { loadSql } from '../store/queries.ts';
import { isValidTimeZone } from '../time.ts';
import type { ReportParams } from './params.ts';
import { getReport, queryName, REPORT_NAMES, type ReportDef } from './registry.ts';

/** One reason a window is left out of a total: the code the exports carry and its label. */
export type ReasonCode = ReasonCodeInfo;

let vocabulary: readonly ReasonCode[] | undefined;

/** The reason-code vocabulary, read from the model layer (queries/models/reason_codes.sql). */
export async function reasonCodes(con: DuckDBConnection): Promise<readonly ReasonCode[]> {
  if (vocabulary) return vocabulary;
  await prepareModelConnection(con);
  const rows = (await con.runAndReadAll(loadSql('reports/reason_codes'))).getRowObjectsJS();
  vocabulary = rows.map((r) => ({ code: String(r.code), stream: String(r.stream), label: String(r.label) }));
  return vocabulary;
}

/** The report's columns with how people read them (columns.ts) and the labels of their codes. */
export function describeColumns(def: ReportDef, codes: readonly ReasonCode[]): ColumnInfo[] {
  const reasonLabels = Object.fromEntries(codes.map((r) => [r.code, r.label]));
  return def.columns.map((c) => {
    const { values, ...shown } = presentation(def.name, c);
    const labels = c.reasonCodes ? reasonLabels : values;
    return {
      ...c,
      ...shown,
      ...(c.reasonCodes ? { display: 'enum' as const } : {}),
      ...(labels ? { labels } : {}),
    };
  });
}

/** Who and where a report runs for: the account, its validated IANA zone and the clock. */
export interface ReportScope {
  account: string;
  zone: string;
  nowMs: number;
  /** FLEETSYNC_FUEL_DROP_L (default DEFAULT_FUEL_DROP_L): the fuel_drops threshold. */
  fuelDropL?: number;
  /** FLEETSYNC_TAX_YEAR_START ('MM-DD', default from the country): the logbook's tax year. */
  taxYearStart?: string;
  /** driver_scores' weights and minimum, fuel_efficiency's tolerance (config; defaults.ts). */
  scoring?: Scoring;
}

/** The scope of a report run with the configured thresholds (a Config is one). */
export const configuredScope = (
  account: string,
  zone: string,
  nowMs: number,
  config: Scoring & { fuelDropL: number; taxYearStart: string },
): ReportScope => ({
  account,
  zone,
  nowMs,
  fuelDropL: config.fuelDropL,
  taxYearStart: config.taxYearStart,
  scoring: config,
});

/** FLEETSYNC_SCORE_WEIGHTS, FLEETSYNC_SCORE_MIN_KM, FLEETSYNC_FUEL_OUTLIER_PCT (a Config is one). */
export interface Scoring {
  scoreWeights: Readonly<ScoreWeights>;
  scoreMinKm: number;
  fuelOutlierPct: number;
}

/**
 * The account's zone: from the `accounts` table (what the sync recorded), else the configured
 * one. Only a zone Intl accepts is returned; it is bound as a parameter, never spliced into SQL.
 */
export async function resolveZone(con: DuckDBConnection, account: string, fallback: string): Promise<string> {
  const rows = (
    await con.runAndReadAll('SELECT timezone FROM accounts WHERE account = $1', [account])
  ).getRowObjectsJS();
  const z = rows[0]?.timezone;
  if (typeof z === 'string' && isValidTimeZone(z)) return z;
  if (!isValidTimeZone(fallback)) throw new FleetsyncError('E_CONFIG', `not an IANA time zone: ${fallback}`);
  return fallback;
}

export function requireReport(name: string): ReportDef {
  const def = getReport(name);
  if (!def)
    throw new FleetsyncError(
      'E_BAD_REQUEST',
      `unknown report ${JSON.stringify(name.slice(0, 40))}; valid reports: ${REPORT_NAMES.join(', ')}`,
    );
  return def;
}

/** Values for every parameter name a report query may use. */
export function bindings(scope: ReportScope, p: ReportParams): Record<string, DuckDBValue> {
  return {
    account: scope.account,
    zone: scope.zone,
    from_day: p.fromDay,
    to_day: p.toDay,
    vehicle: p.vehicle,
    department: p.department,
    grain: p.grain,
    limit: p.limit,
    driver: p.driver,
    site: p.site,
    now: timestampTZValue(BigInt(Math.floor(scope.nowMs)) * 1000n),
    fuel_drop_l: scope.fuelDropL ?? DEFAULT_FUEL_DROP_L,
    fuel_drop_min: FUEL_DROP_MAX_MINUTES,
    tax_year_start: scope.taxYearStart ?? DEFAULT_TAX_YEAR_START,
    service_forecast_days: SERVICE_FORECAST_DAYS,
    service_forecast_min_days: SERVICE_FORECAST_MIN_DAYS,
    ...scoringBindings(scope.scoring),
  };
}

/** The parameters of driver_scores and fuel_efficiency: weights, minimum km, outlier tolerance. */
function scoringBindings(s: Scoring | undefined): Record<string, DuckDBValue> {
  const w = s?.scoreWeights ?? DEFAULT_SCORE_WEIGHTS;
  return {
    w_braking: w.braking,
    w_acceleration: w.acceleration,
    w_cornering: w.cornering,
    w_speeding: w.speeding,
    w_speeding_min: w.speeding_min,
    score_min_km: s?.scoreMinKm ?? DEFAULT_SCORE_MIN_KM,
    outlier_pct: s?.fuelOutlierPct ?? DEFAULT_FUEL_OUTLIER_PCT,
  };
}

/** The settings a report's figures depend on (its `settings`), as its answer states them. */
export function reportSettings(def: ReportDef, s: Scoring | undefined): ReportSettings | undefined {
  if (!def.settings?.length) return undefined;
  return {
    ...(def.settings.includes('score')
      ? {
          score_weights: { ...(s?.scoreWeights ?? DEFAULT_SCORE_WEIGHTS) },
          score_min_km: s?.scoreMinKm ?? DEFAULT_SCORE_MIN_KM,
        }
      : {}),
    ...(def.settings.includes('fuel_outlier')
      ? { fuel_outlier_pct: s?.fuelOutlierPct ?? DEFAULT_FUEL_OUTLIER_PCT }
      : {}),
  };
}

/** Binds exactly the parameters a prepared statement names. */
export function bindNamed(ps: DuckDBPreparedStatement, values: Record<string, DuckDBValue>) {
  const used: Record<string, DuckDBValue> = {};
  for (let i = 1; i <= ps.parameterCount; i++) {
    const name = ps.parameterName(i);
    if (!(name in values)) throw new FleetsyncError('E_DB', `query parameter $${name} has no value`);
    used[name] = values[name] ?? null;
  }
  ps.bind(used);
  return ps;
}

const TRIP_LOOKUPS = /\bgetvariable\('trip_lookups'\)/;

/**
 * Makes the trips report's lookups on `con` when `sql` reads them (queries/reports/lookups/: the
 * account's vehicle and driver keys as an ENUM, then their names and the zone's quarter-hour
 * offsets over the range), right before the statement runs on the same connection.
 */
export async function prepareLookups(
  con: DuckDBConnection,
  sql: string,
  values: Record<string, DuckDBValue>,
) {
  if (!TRIP_LOOKUPS.test(sql)) return;
  for (const name of ['reports/lookups/trip_keys', 'reports/lookups/trip_lookups'])
    await (await prepareBound(con, loadSql(name), values)).run();
}

/** Prepares `sql` and binds exactly the parameters it names. */
export async function prepareBound(con: DuckDBConnection, sql: string, values: Record<string, DuckDBValue>) {
  return bindNamed(await con.prepare(sql), values);
}

export type JsonCell = string | number | boolean | null;
export type JsonRow = Record<string, JsonCell>;

export function toJsonCell(v: unknown): JsonCell {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof Date) return v.toISOString();
  return String(v);
}

export interface ReportResult {
  report: string;
  columns: string[];
  rows: JsonRow[];
  /** Rows of the whole result (all pages). */
  total: number;
  /** Sums over all rows (not only the page) of the columns the registry marks `total`. */
  /** null when no row of the column holds a known value (a sum of unknowns is unknown, not 0). */
  totals: Record<string, number | null>;
  /**
   * Of the same columns, how many rows hold no value (blank: not synced, unknown — no price, no
   * tariff — or not applicable, an EV's litres): the total covers only the rows with a value, and
   * says how many it does not.
   */
  totals_blank: Record<string, number>;
}

/** A page of a report's rows (JSON only: downloads are always complete). */
export interface ReportPage {
  limit: number;
  offset: number;
  /** A column of the report to order the whole result by before paging (unknown values last). */
  sort?: string;
  desc?: boolean;
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;
const ident = (s: string) => `"${s.replaceAll('"', '""')}"`;
const stripStatement = (sql: string) => sql.trim().replace(/;\s*$/, '');

/**
 * The ORDER BY of a sorted page: the column (one of the report's, checked here too), text
 * case-insensitively, unknown values last; ties broken by every column, so pages neither repeat
 * nor skip a row.
 */
function orderOf(def: ReportDef, page: ReportPage): string {
  if (!page.sort) return '';
  const col = def.columns.find((c) => c.name === page.sort);
  if (!col) throw new Error(`sort: ${page.sort} is not a column of ${def.name}`);
  const key = col.kind === 'text' ? `lower(r.${ident(col.name)})` : `r.${ident(col.name)}`;
  const ties = def.columns.map((c) => `r.${ident(c.name)} NULLS LAST`).join(', ');
  return ` ORDER BY ${key} ${page.desc ? 'DESC' : 'ASC'} NULLS LAST, ${ties}`;
}

/** The report's statement and its bindings, on `con` with the models and the lookups it reads. */
async function reportStatement(
  con: DuckDBConnection,
  def: ReportDef,
  scope: ReportScope,
  params: ReportParams,
) {
  await prepareModelConnection(con);
  const values = bindings(scope, params);
  const sql = loadSql(queryName(def));
  await prepareLookups(con, sql, values);
  return { sql, values };
}

/** `sql` paged (and sorted) when `page` says so, bound to `values`. */
function pagedStatement(
  con: DuckDBConnection,
  def: ReportDef,
  sql: string,
  values: Record<string, DuckDBValue>,
  page?: ReportPage,
) {
  if (!page) return prepareBound(con, sql, values);
  return prepareBound(
    con,
    `SELECT * FROM (\n${stripStatement(sql)}\n) AS r${orderOf(def, page)} LIMIT $page_limit OFFSET $page_offset`,
    { ...values, page_limit: page.limit, page_offset: page.offset },
  );
}

const jsonRows = (columns: readonly string[], rows: Record<string, unknown>[]): JsonRow[] =>
  rows.map((r) => {
    const out: JsonRow = {};
    for (const c of columns) out[c] = toJsonCell(r[c]);
    return out;
  });

type Totals = Pick<ReportResult, 'total' | 'totals' | 'totals_blank'>;

/**
 * Row count and the totals of the whole result, counted and summed in SQL (also the totals and
 * unknown rows per totalled column an export's manifest states).
 */
export async function sqlTotals(
  con: DuckDBConnection,
  def: ReportDef,
  sql: string,
  values: Record<string, DuckDBValue>,
): Promise<Totals> {
  const totalCols = def.columns.filter((c) => c.total).map((c) => c.name);
  const cols = [
    'count(*) AS n',
    ...totalCols.flatMap((c, i) => [
      `sum(r.${ident(c)})::DOUBLE AS s${i}`,
      `count(*) FILTER (WHERE r.${ident(c)} IS NULL) AS u${i}`,
    ]),
  ];
  const agg = `SELECT ${cols.join(', ')} FROM (\n${stripStatement(sql)}\n) AS r`;
  const row = (await (await prepareBound(con, agg, values)).runAndReadAll()).getRowObjectsJS()[0] ?? {};
  const totals: Record<string, number | null> = {};
  const unknown: Record<string, number> = {};
  totalCols.forEach((c, i) => {
    const v = row[`s${i}`];
    totals[c] = v === null || v === undefined ? null : round3(Number(v));
    unknown[c] = Number(row[`u${i}`] ?? 0);
  });
  return { total: Number(row.n ?? 0), totals, totals_blank: unknown };
}

/**
 * The parameters a report reads that select no rows (settings of a column's value). Any other
 * parameter the report reads and its totals query does not is taken as a filter that query cannot
 * answer, so a filter added later falls back to counting the statement's rows, never is ignored.
 */
const NOT_FILTERS = new Set(['tax_year_start']);
const paramNames = (sql: string) => new Set([...sql.matchAll(/\$([a-z_][a-z0-9_]*)/gi)].map((m) => m[1]!));

/**
 * The text of queries/reports/totals/<query>.sql; null without a query, or when a filter the
 * report's statement reads and that query does not is set (one it cannot answer).
 */
function answering(
  query: string | undefined,
  sql: string,
  values: Record<string, DuckDBValue>,
): string | null {
  if (!query) return null;
  const text = loadSql(`reports/totals/${query}`);
  const [asked, answered] = [paramNames(sql), paramNames(text)];
  for (const name of asked)
    if (!NOT_FILTERS.has(name) && !answered.has(name) && values[name] !== null && values[name] !== undefined)
      return null;
  return text;
}

/** The rows of the totals query `answering` gives; null when it gives none. */
async function answeredBy(
  con: DuckDBConnection,
  query: string | undefined,
  sql: string,
  values: Record<string, DuckDBValue>,
): Promise<Record<string, unknown>[] | null> {
  const text = answering(query, sql, values);
  if (text === null) return null;
  return (await (await prepareBound(con, text, values)).runAndReadAll()).getRowObjectsJS();
}

/**
 * Whether pageTotals counts the report's own statement (no totals query of its own, or one that
 * cannot answer a filter set): then the connection needs the statement's lookups (prepareLookups).
 */
export const totalsReadStatement = (def: ReportDef, sql: string, values: Record<string, DuckDBValue>) =>
  answering(def.listTotals, sql, values) === null;

/** A local day of a list report (`day` null: the whole range): its rows, its totalled columns' sums and blanks. */
interface ListDay {
  day: string | null;
  rows: number;
  row: Record<string, unknown>;
}

/**
 * The report's rows per local day (ReportDef.listTotals), in day order; null when the report has no such
 * query, or a filter the report reads and that query does not is set (trips' driver): then the
 * statement's own rows are counted.
 */
async function listDays(
  con: DuckDBConnection,
  def: ReportDef,
  sql: string,
  values: Record<string, DuckDBValue>,
): Promise<ListDay[] | null> {
  const rows = await answeredBy(con, def.listTotals, sql, values);
  if (!rows) return null;
  return rows.map((r) => ({ day: r.day === null ? null : String(r.day), rows: Number(r.rows), row: r }));
}

/** The count and totals of all the days' rows. */
function listDayTotals(def: ReportDef, days: readonly ListDay[]): Totals {
  const totals: Record<string, number | null> = {};
  const unknown: Record<string, number> = {};
  for (const c of def.columns.filter((c) => c.total).map((c) => c.name)) {
    let s: number | null = null;
    let blank = 0;
    for (const { row } of days) {
      if (!(c in row) || !(`${c}_blank` in row))
        throw new FleetsyncError('E_DB', `the totals of ${def.name} give no ${c} or ${c}_blank`);
      if (row[c] !== null && row[c] !== undefined) s = (s ?? 0) + Number(row[c]);
      blank += Number(row[`${c}_blank`] ?? 0);
    }
    totals[c] = s === null ? null : round3(s);
    unknown[c] = blank;
  }
  return { total: days.reduce((a, d) => a + d.rows, 0), totals, totals_blank: unknown };
}

/**
 * The days an unsorted page falls on and its offset among their rows (rows are in day order, so
 * the page is those days' rows from that offset); null when the page is past the last row.
 */
function pageDays(days: readonly ListDay[], page: ReportPage) {
  let before = 0; // the rows of the days before the page's first
  let seen = 0; // the rows of the days up to this one
  let first: string | undefined;
  for (const d of days as readonly (ListDay & { day: string })[]) {
    seen += d.rows;
    if (first === undefined) {
      if (seen <= page.offset) {
        before = seen;
        continue;
      }
      first = d.day;
    }
    if (seen >= page.offset + page.limit)
      return { from_day: first, to_day: d.day, offset: page.offset - before };
  }
  // the last page: from its first day to the range's end
  return first === undefined ? null : { from_day: first, offset: page.offset - before };
}

type PageRows = { columns: string[]; rows: JsonRow[] };

async function readRows(ps: DuckDBPreparedStatement): Promise<PageRows> {
  const reader = await ps.runAndReadAll();
  const columns = reader.columnNames();
  return { columns, rows: jsonRows(columns, reader.getRowObjectsJS()) };
}

/**
 * A list report's page statement and the totals of all its rows: from its totals query when it
 * has one (ReportDef.listTotals; an unsorted page of day rows then reads only the days it falls on), else
 * the statement as it is and no totals (the caller counts the rows).
 */
async function listPage(
  con: DuckDBConnection,
  def: ReportDef,
  sql: string,
  values: Record<string, DuckDBValue>,
  page: ReportPage,
): Promise<{ ps: DuckDBPreparedStatement; totals: Totals | null }> {
  const days = await listDays(con, def, sql, values);
  if (!days) return { ps: await pagedStatement(con, def, sql, values, page), totals: null };
  const totals = listDayTotals(def, days);
  if (page.sort || days.some((d) => d.day === null))
    return { ps: await pagedStatement(con, def, sql, values, page), totals };
  const at = pageDays(days, page);
  if (!at) return { ps: await pagedStatement(con, def, sql, values, { ...page, limit: 0 }), totals };
  const range = { ...values, from_day: at.from_day, ...(at.to_day ? { to_day: at.to_day } : {}) };
  return { ps: await pagedStatement(con, def, sql, range, { ...page, offset: at.offset }), totals };
}

/** The count and totals of a page's whole result: its totals query's (ReportDef.listTotals), else sqlTotals. */
export async function pageTotals(
  con: DuckDBConnection,
  def: ReportDef,
  sql: string,
  values: Record<string, DuckDBValue>,
): Promise<Totals> {
  const days = await listDays(con, def, sql, values);
  return days ? listDayTotals(def, days) : sqlTotals(con, def, sql, values);
}

/**
 * A report whose row is one record (grain 'one …': a trip, a passage, a window) is a list: its
 * page is a top-N over its keys (only the page's rows are formatted) and its totals a scan of the
 * columns they sum, so the two run apart. Any other report aggregates (a vehicle × month, a
 * driver, a day): its whole statement is the work and its result is small (a row per vehicle and
 * period), so a page of it computes the result once into a temp table and reads the page and the
 * totals from there, instead of computing it twice (issue 29: a cold call at 5,000 vehicles).
 */
export const isListReport = (def: ReportDef) => def.grain.startsWith('one ');

let pageTables = 0;

/**
 * An unsorted page of a report read by vehicle (ReportDef.vehiclePages) with the whole result's
 * count and totals (an aggregating report's from its vehicles' rows, a list's as for any of its
 * pages); null when sorted, when it is not one, when its query cannot answer a filter that is set,
 * when a vehicle is listed twice (an aggregating report's: two registrations, its rows would not lie
 * together) or has no registration of its own (a list's, the logbook's: its trips' may differ, their
 * order is then not by vehicle).
 */
async function vehiclePage(
  con: DuckDBConnection,
  def: ReportDef,
  sql: string,
  values: Record<string, DuckDBValue>,
  page: ReportPage,
): Promise<ReportResult | null> {
  const how = def.vehiclePages;
  if (page.sort || !how) return null;
  const vehicles = await answeredBy(con, how.query, sql, values);
  if (!vehicles) return null;
  const list = isListReport(def);
  const twice = new Set(vehicles.map((v) => v.vehicle_id)).size !== vehicles.length;
  if (list ? vehicles.some((v) => v.registration === null) : twice) return null;
  const rows = await rowsOfVehicles(con, def, sql, values, page, vehicles, how.eachVehicle);
  const byVehicle = vehicles.map((v) => ({ day: null, rows: Number(v.rows), row: v }));
  const totals = list ? await pageTotals(con, def, sql, values) : listDayTotals(def, byVehicle);
  return { report: def.name, ...rows, ...totals };
}

/**
 * The page's rows of a report read by vehicle (ReportDef.vehiclePages): the statement's rows of
 * the vehicles the page falls on only (`vehicles`: the result's, in its order, with their rows; a vehicle's rows lie
 * together), from the page's offset among theirs; in one statement, or one per vehicle with the
 * vehicle as the report's filter (`eachVehicle`).
 */
async function rowsOfVehicles(
  con: DuckDBConnection,
  def: ReportDef,
  sql: string,
  values: Record<string, DuckDBValue>,
  page: ReportPage,
  vehicles: readonly Record<string, unknown>[],
  eachVehicle: boolean,
): Promise<PageRows> {
  const ids: bigint[] = [];
  let before = 0; // the rows of the vehicles before the page's first
  let taken = 0; // the rows of the vehicles taken
  for (const v of vehicles) {
    const n = Number(v.rows);
    if (!ids.length && before + n <= page.offset) before += n;
    else if (n > 0) {
      ids.push(v.vehicle_id as bigint);
      taken += n;
      if (taken - (page.offset - before) >= page.limit) break;
    }
  }
  // past the last row: no vehicle, the columns from an empty page
  if (!ids.length) return readRows(await pagedStatement(con, def, sql, values, { ...page, limit: 0 }));
  if (eachVehicle) {
    const out: PageRows = { columns: [], rows: [] };
    let offset = page.offset - before;
    for (const vehicle of ids) {
      const at = { limit: page.limit - out.rows.length, offset };
      const part = await readRows(await pagedStatement(con, def, sql, { ...values, vehicle }, at));
      out.columns = part.columns;
      out.rows.push(...part.rows);
      offset = 0;
    }
    return out;
  }
  return readRows(
    await prepareBound(
      con,
      `SELECT * FROM (\n${stripStatement(sql)}\n) AS r WHERE list_contains($page_vehicles, r.vehicle_id) LIMIT $page_limit OFFSET $page_offset`,
      { ...values, page_vehicles: listValue(ids), page_limit: page.limit, page_offset: page.offset - before },
    ),
  );
}

export async function runReport(
  con: DuckDBConnection,
  def: ReportDef,
  scope: ReportScope,
  params: ReportParams,
  page?: ReportPage,
): Promise<ReportResult> {
  const { sql, values } = await reportStatement(con, def, scope, params);
  const byVehicle = page ? await vehiclePage(con, def, sql, values, page) : null;
  if (byVehicle) return byVehicle;
  if (!page || isListReport(def)) return readPage(con, def, sql, values, page);
  // an aggregating report's page: its statement run once into a temp table, the page and the
  // totals read from there (a scan of the temp table keeps the statement's row order)
  const table = ident(`report_page_${process.pid}_${++pageTables}`);
  await (await prepareBound(con, `CREATE TEMP TABLE ${table} AS ${stripStatement(sql)}`, values)).run();
  try {
    return await readPage(con, def, `SELECT * FROM ${table}`, {}, page);
  } finally {
    await con.run(`DROP TABLE IF EXISTS ${table}`);
  }
}

/** The rows of `sql` (a page of them when `page` says so) and the totals of all of its rows. */
async function readPage(
  con: DuckDBConnection,
  def: ReportDef,
  sql: string,
  values: Record<string, DuckDBValue>,
  page?: ReportPage,
): Promise<ReportResult> {
  const listed = page && isListReport(def) ? await listPage(con, def, sql, values, page) : null;
  const { columns, rows } = await readRows(listed?.ps ?? (await pagedStatement(con, def, sql, values, page)));
  if (listed?.totals) return { report: def.name, columns, rows, ...listed.totals };
  if (page && (page.offset > 0 || rows.length >= page.limit))
    // Not the whole result: count and sum over all rows in SQL, so totals tie to the CSV.
    return { report: def.name, columns, rows, ...(await sqlTotals(con, def, sql, values)) };
  const totals: Record<string, number | null> = {};
  const unknown: Record<string, number> = {};
  for (const c of def.columns.filter((c) => c.total).map((c) => c.name)) {
    let s: number | null = null;
    for (const r of rows) if (typeof r[c] === 'number') s = (s ?? 0) + r[c];
    totals[c] = s === null ? null : round3(s);
    unknown[c] = rows.filter((r) => r[c] === null || r[c] === undefined).length;
  }
  return { report: def.name, columns, rows, total: rows.length, totals, totals_blank: unknown };
}

/**
 * A page of a report for an answer too large to hold: the count and totals of the whole result
 * first (in SQL, as for any page that is not the whole result; sums of values of at most three
 * decimals, rounded to three, so they equal the sums of the rows), then the rows one DuckDB chunk
 * (2,048 rows) at a time, so only a chunk is ever held in JS.
 */
export async function streamReport(
  con: DuckDBConnection,
  def: ReportDef,
  scope: ReportScope,
  params: ReportParams,
  page: ReportPage,
): Promise<Totals & { rows: AsyncIterable<JsonRow[]> }> {
  const { sql, values } = await reportStatement(con, def, scope, params);
  const listed = isListReport(def) ? await listPage(con, def, sql, values, page) : null;
  const totals = listed?.totals ?? (await sqlTotals(con, def, sql, values));
  const result = await (listed?.ps ?? (await pagedStatement(con, def, sql, values, page))).stream();
  const columns = result.columnNames();
  async function* rows() {
    for await (const chunk of result.yieldRowObjectJs()) yield jsonRows(columns, chunk);
  }
  return { ...totals, rows: rows() };
}

/** Declared with the API's answers (src/server/api-types.ts: every answer states it). */
export type { ReportMeta };

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2026-11-19` → `complete through 19 Nov 2026 (local)`; null → that nothing is complete yet. */
export function completeThroughText(day: string | null): string {
  if (!day) return 'no complete day yet';
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return `complete through ${d} ${MONTHS[m - 1]} ${y} (local)`;
}

/**
 * "Complete through" per data version: key = account, zone, latest run and a fingerprint of the
 * ledger (meta_key.sql); value = the ISO local instant and the last complete local day (or null). Give one per server (or leave
 * it out to compute every time). A sync changes the key, so a stale value is never served.
 */
export type MetaCache = Map<string, { through: string | null; day: string | null }>;
const META_CACHE_MAX = 32;

/** Sidecar facts of a report: generation time, zone, latest run, "complete through". */
export async function reportMeta(
  con: DuckDBConnection,
  scope: ReportScope,
  cache?: MetaCache,
): Promise<ReportMeta> {
  const values = bindings(scope, {} as ReportParams);
  const keyRow = (
    await (await prepareBound(con, loadSql('reports/meta_key'), values)).runAndReadAll()
  ).getRowObjectsJS()[0];
  const runId = (toJsonCell(keyRow?.run_id) as string | null) ?? null;
  const key = JSON.stringify([
    scope.account,
    scope.zone,
    toJsonCell(keyRow?.run_key),
    toJsonCell(keyRow?.ledger_key),
  ]);
  let cached = cache?.get(key);
  if (cached === undefined) {
    await prepareModelConnection(con);
    const row = (
      await (await prepareBound(con, loadSql('reports/meta'), values)).runAndReadAll()
    ).getRowObjectsJS()[0];
    cached = {
      through: (toJsonCell(row?.complete_through) as string | null) ?? null,
      day: (toJsonCell(row?.complete_through_day) as string | null) ?? null,
    };
    if (cache) {
      if (cache.size >= META_CACHE_MAX) cache.delete(cache.keys().next().value as string);
      cache.set(key, cached);
    }
  }
  return {
    generated_at: new Date(scope.nowMs).toISOString(),
    zone: scope.zone,
    complete_through: cached.through,
    complete_through_day: cached.day,
    complete_through_text: completeThroughText(cached.day),
    run_id: runId,
  };
}
