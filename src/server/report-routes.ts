/**
 * GET /api/reports (the registry), GET /api/reports/<report> (JSON) and
 * GET /api/reports/<report>.csv|.xlsx|.parquet|.arrow (attachments; `?headers=human` for CSV written by the export code of
 * `fleetsync export`): all run the same named query with the same validated parameters. Sidecar facts (generated_at, zone, complete through, run id) travel as
 * X-Fleetsync-* headers and, for JSON, in the body.
 */
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { Router, type Response } from 'express';
import type { Config } from '../config.ts';
import { FleetsyncError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Database } from '../store/db.ts';
import { isOutOfMemory } from '../store/storage-error.ts';
import type { ExportFormat, HeaderStyle } from '../reports/export.ts';
import { parseReportParams, rangeNote, type ReportParams } from '../reports/params.ts';
import { REPORT_NAMES, getReport, type ReportDef } from '../reports/registry.ts';
import {
  describeColumns,
  configuredScope,
  reasonCodes,
  reportMeta,
  reportSettings,
  requireReport,
  resolveZone,
  runReport,
  streamReport,
  type MetaCache,
  type ReportMeta,
  type ReportPage,
  type ReportResult,
  type ReportScope,
} from '../reports/run.ts';
import type { Clock } from '../time.ts';
import { accountOf, withoutAccount } from './account-routes.ts';
import type { EndpointRefusal, ReportAnswer, ReportsIndexAnswer } from './api-types.ts';
import { unavailableFor } from '../reports/needs.ts';
import { createHeavyQueue, type HeavyQueue } from './heavy-queue.ts';
import type { WarmUp, WarmUpCall } from './warm-up.ts';
import { localDate } from '../time.ts';
import {
  createConnectionPool,
  createReportCache,
  createStampedVersions,
  dataVersion,
  DEFAULT_REPORT_CACHE,
  fileStamp,
  filesWritten,
} from './report-cache.ts';

export interface ReportRouteDeps {
  db: Database;
  config: Readonly<Config>;
  log: Logger;
  now: Clock;
  tempDir: string;
  /** Downloads at once and in line (default DEFAULT_HEAVY_QUEUE); beyond it 503 + Retry-After. */
  downloads?: HeavyQueue;
  /** The overview's calls computed ahead of the first visit (warm-up.ts); attached here. */
  warmUp?: WarmUp;
}

function setMeta(res: Response, meta: ReportMeta, rows: number, note: string | null) {
  res.set({
    'X-Fleetsync-Generated-At': meta.generated_at,
    'X-Fleetsync-Zone': meta.zone,
    'X-Fleetsync-Complete-Through': meta.complete_through ?? '',
    'X-Fleetsync-Complete-Through-Day': meta.complete_through_day ?? '',
    ...(note ? { 'X-Fleetsync-Range-Note': note } : {}),
    'X-Fleetsync-Run-Id': meta.run_id ?? '',
    'X-Fleetsync-Rows': String(rows),
  });
}

export const csvFileName = (name: string, p: ReportParams, ext: ExportFormat = 'csv') =>
  `${name}_${p.fromDay}_${p.toDay}${p.vehicle !== null ? `_v${p.vehicle}` : ''}.${ext}`;

/** JSON rows per page unless `limit` says otherwise; downloads are always complete. */
export const DEFAULT_PAGE_ROWS = 1000;
export const MAX_PAGE_ROWS = 100_000;
const IDLE_CONNECTIONS = 4;

/**
 * Takes `limit`/`offset` and `sort`/`dir` out of a JSON request's query for a report that pages
 * (one without its own `limit` parameter). `sort` must be one of `columns` (the report's); `dir`
 * is asc (default) or desc. Returns the page and the query without them.
 */
export function pageOf(
  query: Record<string, unknown>,
  pages: boolean,
  columns: readonly string[] = [],
): { page: ReportPage | undefined; rest: Record<string, unknown> } {
  if (!pages) return { page: undefined, rest: query };
  const rest: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(query))
    if (!['limit', 'offset', 'sort', 'dir'].includes(k)) rest[k] = v;
  const num = (name: string, v: unknown, min: number, max: number, dflt: number) => {
    if (v === undefined || v === '') return dflt;
    if (typeof v !== 'string' || !/^\d{1,9}$/.test(v) || Number(v) < min || Number(v) > max)
      throw new FleetsyncError('E_BAD_REQUEST', `${name}: must be a whole number ${min}–${max}`);
    return Number(v);
  };
  return {
    page: {
      limit: num('limit', query.limit, 1, MAX_PAGE_ROWS, DEFAULT_PAGE_ROWS),
      offset: num('offset', query.offset, 0, 999_999_999, 0),
      ...sortOf(query, columns),
    },
    rest,
  };
}

/** `sort` (a column of the report) and `dir` of a JSON page request, checked. */
function sortOf(
  query: Record<string, unknown>,
  columns: readonly string[],
): Pick<ReportPage, 'sort' | 'desc'> {
  const { sort, dir } = query;
  if (dir !== undefined && dir !== '' && dir !== 'asc' && dir !== 'desc')
    throw new FleetsyncError('E_BAD_REQUEST', 'dir: must be asc or desc');
  if (sort === undefined || sort === '') return {};
  if (typeof sort !== 'string' || !columns.includes(sort))
    throw new FleetsyncError('E_BAD_REQUEST', `sort: must be a column of the report (${columns.join(', ')})`);
  return { sort, desc: dir === 'desc' };
}

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
  arrow: 'application/vnd.apache.arrow.file',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/**
 * `?headers=machine|human` of a CSV download (taken out of the query before the report's
 * parameters); `styles` are the export's HEADER_STYLES (a download has loaded the export code).
 */
export function headersOf(
  query: Record<string, unknown>,
  format: ExportFormat | undefined,
  styles: readonly HeaderStyle[],
) {
  const { headers, ...rest } = query;
  if (headers === undefined || headers === '') return { headers: 'machine' as HeaderStyle, rest };
  if (format !== 'csv')
    throw new FleetsyncError('E_BAD_REQUEST', 'headers: only a .csv download takes headers=machine|human');
  if (typeof headers !== 'string' || !(styles as readonly string[]).includes(headers))
    throw new FleetsyncError('E_BAD_REQUEST', `headers: must be ${styles.join(' or ')}`);
  return { headers: headers as HeaderStyle, rest };
}

/** JSON pages larger than this are streamed from DuckDB's chunks instead of held and cached. */
export const STREAM_PAGE_ROWS = 5000;

type ReportTotals = Pick<ReportResult, 'total' | 'totals' | 'totals_blank'>;

/**
 * The JSON answer up to `"rows":` (the rows' text follows, then `}`): the same text
 * `JSON.stringify` gives for the whole answer, whose last key is `rows`.
 */
function answerHead(
  def: ReportDef,
  params: ReportParams,
  page: ReportPage | undefined,
  meta: ReportMeta,
  note: string | null,
  columns: ReturnType<typeof describeColumns>,
  result: ReportTotals,
  unavailable: EndpointRefusal[],
  scoring: ReportScope['scoring'],
): string {
  const settings = reportSettings(def, scoring);
  const head = {
    report: def.name,
    title: def.title,
    params: {
      from: params.fromDay,
      to: params.toDay,
      vehicle: params.vehicle,
      department: params.department,
      ...(def.extra.includes('grain') ? { grain: params.grain } : {}),
      ...(def.extra.includes('limit') ? { limit: params.limit } : {}),
      ...(def.extra.includes('driver') ? { driver: params.driver } : {}),
      ...(def.extra.includes('site') ? { site: params.site } : {}),
    },
    ...meta,
    range_note: note,
    unavailable,
    ...(settings ? { settings } : {}),
    columns,
    total: result.total,
    ...(page ? { offset: page.offset, limit: page.limit } : {}),
    totals: result.totals,
    totals_blank: result.totals_blank,
    rows: [],
  } satisfies ReportAnswer;
  const text = JSON.stringify(head);
  return text.slice(0, text.length - '[]}'.length);
}

/** Writes `text`, waiting while the socket's buffer is full (a slow client holds one chunk). */
function write(res: Response, text: string): Promise<void> {
  if (res.destroyed || res.write(text)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * A place in the queue of heavy work (the release), or null after answering 503 with
 * Retry-After because the line is full.
 */
async function enterHeavy(res: Response, queue: HeavyQueue): Promise<(() => void) | null> {
  const entered = queue.enter();
  if (entered) return entered;
  const wait = queue.retryAfterS();
  res.set({ 'Retry-After': String(wait), 'Cache-Control': 'no-store' });
  res.status(503).json({
    error: 'E_BUSY',
    message: `${queue.active} downloads are being written and ${queue.queued} wait; try again in ${wait} s`,
  });
  return null;
}

/** JSON report computations (answers not kept yet) that run at once; the others wait in line. */
export const COMPUTING_AT_ONCE = 2;

/**
 * The line of JSON report computations (session 13, `edge`). On a server's first seconds the
 * overview's burst (15 calls of 5 reports, beside the warm-up) asked DuckDB's pool for every
 * report's joins at once and 4 of 15 answered 500 "internal error" (Out of Memory). Now at most
 * `limit` computations run at once (`compute`; answers kept in the memo never wait), and a call
 * that still ran out of memory runs once more `alone`: after the computations running finish,
 * with no new one started until it is done (its own computations pass). Out of memory alone, the
 * call says so in words (E_DB_MEMORY, 503), never "internal error".
 */
export function createComputeGate(limit = COMPUTING_AT_ONCE) {
  let running = 0;
  let solo = false;
  const line: { alone: boolean; go: () => void }[] = [];
  const admits = (alone: boolean) => !solo && (alone ? running === 0 : running < limit);
  const wake = () => {
    // first come, first served: a call waiting to run alone holds back the computations behind it
    while (line.length > 0 && admits(line[0]!.alone)) {
      const next = line.shift()!;
      if (next.alone) solo = true;
      else running++;
      next.go();
    }
  };
  async function pass<T>(fn: () => Promise<T>, alone: boolean): Promise<T> {
    await new Promise<void>((go) => {
      line.push({ alone, go });
      wake();
    });
    try {
      return await fn();
    } finally {
      if (alone) solo = false;
      else running--;
      wake();
    }
  }
  return {
    /** A report computation: at most `limit` at once (`alone`: the call runs alone already). */
    compute: <T>(fn: () => Promise<T>, alone = false): Promise<T> => (alone ? fn() : pass(fn, false)),
    /** A call (`fn(alone)`), run once more alone when it ran out of DuckDB's memory beside others. */
    async call<T>(fn: (alone: boolean) => Promise<T>): Promise<T> {
      try {
        return await fn(false);
      } catch (e) {
        if (!isOutOfMemory(e)) throw e;
      }
      try {
        return await pass(() => fn(true), true);
      } catch (e) {
        if (!isOutOfMemory(e)) throw e;
        throw new FleetsyncError(
          'E_DB_MEMORY',
          'the report needs more memory than the database may use (its memory_limit), even with no other report ' +
            'running; ask for a shorter period or fewer vehicles',
          { cause: e },
        );
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return line.length;
    },
  };
}

export function reportRoutes(deps: ReportRouteDeps): Router {
  const r = Router();
  // Report connections are kept (a few idle ones) so their macros are defined once, and
  // "complete through" is computed once per data version.
  const metaCache: MetaCache = new Map();
  const pool = createConnectionPool(deps.db, IDLE_CONNECTIONS);
  const acquire = pool.acquire;
  const release = pool.release;
  /** `fn` on a pooled connection, released after it (closed when `fn` failed). */
  async function withConnection<T>(fn: (con: DuckDBConnection) => Promise<T>): Promise<T> {
    const con = await acquire();
    let ok = false;
    try {
      const value = await fn(con);
      ok = true;
      return value;
    } finally {
      release(con, ok);
    }
  }
  const downloads = deps.downloads ?? createHeavyQueue();
  const computations = createComputeGate();
  // JSON answers (rows, total, totals, described columns) by data version (report-cache.ts),
  // the version asked again only when the database's files changed; so are the account's zone
  // (fixed at its first sync; a re-zone writes the database), which was the slowest part of a
  // cached answer (p50 14 of 21 ms in the load test, 0.1–1 s while a sync wrote), and the endpoints
  // refused to the account that a report reads (recorded by a sync's writer).
  const stamped = <T>() => createStampedVersions<T>(fileStamp(deps.db.path), filesWritten(deps.db.path));
  const versions = stamped<string>();
  const zones = stamped<string>();
  const refusals = stamped<EndpointRefusal[]>();
  const answers = createReportCache<{
    result: ReportTotals;
    rowsJson: string;
    rows: number;
    columns: ReturnType<typeof describeColumns>;
    meta: ReportMeta;
  }>(DEFAULT_REPORT_CACHE);

  let inFlight = 0;
  const idleWaiters: (() => void)[] = [];

  /**
   * A call's scope, page and parameters from its query (`format`: a download's). The account's zone
   * is kept: a connection is taken only to find it.
   */
  async function callOf(
    account: string,
    def: ReportDef,
    query: Record<string, unknown>,
    format: ExportFormat | undefined,
  ) {
    const zone = await zones(account, () =>
      withConnection((con) => resolveZone(con, account, deps.config.timezone)),
    );
    const scope = configuredScope(account, zone, deps.now(), deps.config);
    // The export code (and its libraries: exceljs, apache-arrow, ~40 MB of RSS) is loaded by the
    // first download, not by every server.
    const exporter = format ? await import('../reports/export.ts') : null;
    const { headers, rest: q } = headersOf(query, format, exporter?.HEADER_STYLES ?? []);
    const { page, rest } = pageOf(
      q,
      !format && !def.extra.includes('limit'),
      def.columns.map((c) => c.name),
    );
    return { scope, exporter, headers, page, params: parseReportParams(rest, def, scope) };
  }

  /**
   * A JSON answer from the memo, or computed (`computing` is called then) and kept there. A
   * computation takes its connection once the line (computeGate) admits it: a call waiting in line
   * holds none.
   */
  async function answerOf(
    def: ReportDef,
    scope: ReportScope,
    params: ReportParams,
    page: ReportPage | undefined,
    computing: () => void = () => {},
    alone = false,
  ) {
    const version = await versions(scope.account, () => withConnection((con) => dataVersion(con, scope)));
    return answers.through(
      version,
      { def, scope, params, page },
      async () => {
        computing();
        return computations.compute(
          () =>
            withConnection(async (con) => {
              const { rows, ...rest } = await runReport(con, def, scope, params, page);
              return {
                result: rest,
                rowsJson: JSON.stringify(rows),
                rows: rows.length,
                columns: describeColumns(def, await reasonCodes(con)),
                meta: await reportMeta(con, scope, metaCache),
              };
            }),
          alone,
        );
      },
      (v) => v.rowsJson.length + 4096,
    );
  }

  /**
   * Writes a large page as it is read (JSON equal to what runReport's answer would be). True when
   * sent whole or refused with 503; false when the client left midway (its connection is closed).
   */
  async function streamedPage(
    res: Response,
    con: DuckDBConnection,
    a: { def: ReportDef; scope: ReportScope; params: ReportParams; page: ReportPage; started: number },
  ): Promise<boolean> {
    const leave = await enterHeavy(res, downloads);
    if (!leave) return true;
    if (res.destroyed) {
      leave();
      return false; // the client left while waiting in line
    }
    let rows = 0;
    let whole: boolean;
    try {
      const { def, scope, params, page } = a;
      const meta = await reportMeta(con, scope, metaCache);
      const columns = describeColumns(def, await reasonCodes(con));
      // Before the rows' stream opens: another statement on this connection would end it.
      const unavailable = await unavailableFor(con, scope.account, def.name, scope.zone);
      const { rows: chunks, ...totals } = await streamReport(con, def, scope, params, page);
      const note = rangeNote(params, scope, meta.complete_through_text);
      setMeta(res, meta, totals.total, note);
      res.set({ 'Cache-Control': 'no-store', 'Content-Type': 'application/json; charset=utf-8' });
      await write(
        res,
        answerHead(def, params, page, meta, note, columns, totals, unavailable, scope.scoring) + '[',
      );
      for await (const chunk of chunks) {
        if (res.destroyed) break; // the client left: the connection (mid-result) is closed
        let text = '';
        for (const r of chunk) text += (rows++ === 0 ? '' : ',') + JSON.stringify(r);
        await write(res, text);
      }
      whole = !res.destroyed;
      res.end(']}');
    } catch (e) {
      if (res.headersSent) res.destroy(); // the client sees a cut answer, never a short valid one
      throw e;
    } finally {
      leave();
    }
    deps.log.debug('report json streamed', { report: a.def.name, rows, ms: Date.now() - a.started });
    return whole;
  }

  r.get('/reports', async (_req, res) => {
    const reasons = await withConnection(reasonCodes);
    res.json({
      // what each reason code in the exports means (queries/models/reason_codes.sql)
      reasons,
      reports: REPORT_NAMES.map((n) => {
        const d = getReport(n)!;
        return {
          name: d.name,
          title: d.title,
          grain: d.grain,
          columns: describeColumns(d, reasons),
          params: ['from', 'to', 'month', 'vehicle', 'department', ...d.extra],
        };
      }),
    } satisfies ReportsIndexAnswer);
  });

  r.get('/reports/:file', async (req, res) => {
    const m = /^([a-z_]{1,40})(?:\.(csv|parquet|arrow|xlsx))?$/.exec(req.params.file);
    if (!m)
      throw new FleetsyncError(
        'E_BAD_REQUEST',
        `unknown report; valid reports: ${REPORT_NAMES.join(', ')} (add .csv, .xlsx, .parquet or .arrow for a download)`,
      );
    const def = requireReport(m[1]!);
    const format = m[2] as ExportFormat | undefined;
    const started = Date.now();
    const account = accountOf(res, deps.config);
    const query = withoutAccount(req.query as Record<string, unknown>);
    if (!format) {
      // A call the warm-up's running pass is yet to make waits for it (a visit in a server's first
      // seconds), holding no connection and not counted in flight; it then reads the kept answer.
      if (account === deps.config.account) await deps.warmUp?.join(def.name, query);
      // a dashboard call in flight: the warm-up waits for it (downloads queue on their own)
      inFlight++;
      try {
        await jsonAnswer(res, def, account, query, started);
      } finally {
        if (--inFlight === 0) for (const w of idleWaiters.splice(0)) w();
      }
      return;
    }
    const con = await acquire();
    let ok = false;
    try {
      const { scope, exporter, headers, params } = await callOf(account, def, query, format);
      // Downloads take a place in the queue first: a full line answers 503 with Retry-After.
      const leave = await enterHeavy(res, downloads);
      if (!leave) {
        ok = true;
        return;
      }
      const path = join(deps.tempDir, `${randomUUID()}.${format}`);
      let out;
      try {
        if (req.socket.destroyed) {
          ok = true;
          return; // the client left while waiting in line
        }
        out = await exporter!.exportReport(con, def, scope, params, format, path, {
          manifest: false,
          metaCache,
          headers,
        });
      } finally {
        leave();
      }
      ok = true;
      setMeta(res, out.meta, out.rows, rangeNote(params, scope, out.meta.complete_through_text));
      res.set('Cache-Control', 'no-store');
      res.attachment(csvFileName(def.name, params, format));
      res.set('Content-Type', CONTENT_TYPES[format]);
      const stream = createReadStream(path);
      const cleanup = () => void rm(path, { force: true });
      res.on('close', cleanup);
      stream.pipe(res);
      deps.log.info('report file', {
        report: def.name,
        format,
        rows: out.rows,
        ms: Date.now() - started,
      });
    } finally {
      release(con, ok);
    }
  });

  /**
   * A JSON call: its scope, its answer (kept, or computed in the line of computations, each part
   * once more alone if DuckDB ran out of memory beside other calls: computeGate) and the
   * endpoints refused to the account, each on a connection taken for it.
   */
  async function jsonAnswer(
    res: Response,
    def: ReportDef,
    account: string,
    query: Record<string, unknown>,
    started: number,
  ) {
    const { scope, page, params } = await computations.call(() => callOf(account, def, query, undefined));
    if (page && page.limit > STREAM_PAGE_ROWS) {
      // A large page is streamed (never whole in memory) and takes a place in the queue of
      // heavy work, as a download does.
      const con = await acquire();
      let ok = false;
      try {
        ok = await streamedPage(res, con, { def, scope, params, page, started });
      } finally {
        release(con, ok);
      }
      return;
    }
    const { cached, computed, unavailable } = await computations.call(async (alone) => {
      let computed = false;
      const cached = await answerOf(def, scope, params, page, () => (computed = true), alone);
      const unavailable = await refusals(JSON.stringify([scope.account, def.name, scope.zone]), () =>
        withConnection((con) => unavailableFor(con, scope.account, def.name, scope.zone)),
      );
      return { cached, computed, unavailable };
    });
    // The same data version, so the same run and "complete through"; generated now.
    const meta = { ...cached.meta, generated_at: new Date(scope.nowMs).toISOString() };
    const note = rangeNote(params, scope, meta.complete_through_text);
    setMeta(res, meta, cached.result.total, note);
    // kept: from the memo (or a computation another call had started, the warm-up's say)
    res.set({ 'Cache-Control': 'no-store', 'X-Fleetsync-Answer': computed ? 'computed' : 'kept' });
    // The answer's JSON with the rows' text kept from when it was computed (rows come last).
    res.set('Content-Type', 'application/json');
    res.send(
      answerHead(def, params, page, meta, note, cached.columns, cached.result, unavailable, scope.scoring) +
        cached.rowsJson +
        '}',
    );
    deps.log.debug('report json', { report: def.name, rows: cached.rows, ms: Date.now() - started });
  }

  deps.warmUp?.attach({
    inFlight: () => inFlight,
    idle: () => new Promise<void>((resolve) => idleWaiters.push(resolve)),
    calls: async () => {
      const account = deps.config.account;
      const zone = await zones(account, () =>
        withConnection((con) => resolveZone(con, account, deps.config.timezone)),
      );
      return overviewCalls(localDate(deps.now(), zone));
    },
    run: async ({ report, query }) => {
      const def = requireReport(report);
      return computations.call(async (alone) => {
        const call = await callOf(deps.config.account, def, query, undefined);
        const { result } = await answerOf(def, call.scope, call.params, call.page, undefined, alone);
        return { total: result.total, limit: call.page?.limit };
      });
    },
  });

  return r;
}

/** The dashboard's default period (filters.js' last_3_months): the month two before today's to today. */
export function defaultPeriod(today: string): { from: string; to: string } {
  const y = Number(today.slice(0, 4));
  const m = Number(today.slice(5, 7));
  const [yy, mm] = m <= 2 ? [y - 1, m + 10] : [y, m - 2];
  return { from: `${yy}-${String(mm).padStart(2, '0')}-01`, to: today };
}

/**
 * What the overview asks at its default period, as the dashboard's query strings say it
 * (dashboard/js/overview.js, filters.js; `allPages` where the page reads every page of the
 * answer, page.js), in the order the warm-up computes them: the vehicle
 * list first (every page of it: the page asks it before any section), then the sections cheapest
 * first. The page draws each section as its answer comes, so a visit during the warm-up (a
 * server's first seconds) finds the cheap sections kept while the dear ones are still being
 * computed; at 5,000 vehicles × 2 years, cold, in CPU: top_vehicles 0.17 s, trend 0.31 s, kpis,
 * cost_departments and costs ~0.42 s each (bench/experiments/cold-calls.ts).
 */
export function overviewCalls(today: string): WarmUpCall[] {
  const period = defaultPeriod(today);
  return [
    { report: 'vehicles', query: {}, allPages: true },
    // charts: drawn from every row (page.js reads them all)
    { report: 'top_vehicles', query: period, allPages: true },
    { report: 'trend', query: { ...period, grain: 'week' }, allPages: true },
    { report: 'kpis', query: period },
    { report: 'cost_departments', query: period },
    { report: 'costs', query: period },
  ];
}
