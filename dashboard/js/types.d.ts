// Types of the dashboard's own shapes (pages, sections, charts, tables), for the JSDoc of js/*.js.
// The API's answers come from src/server/api-types.ts, the one declaration the routes build.
import type {
  Cell,
  ColumnDef,
  ColumnOf,
  ReportAnswer,
  ReportName,
  ReportRow,
  StatusAnswer,
} from '../../src/server/api-types.ts';

export type * from '../../src/server/api-types.ts';

/** The filter bar: local days (inclusive), a vehicle id and a department ('' = all). */
export interface Filter {
  from: string;
  to: string;
  vehicle: string;
  department: string;
}

/**
 * The drill-down in the URL: a month (YYYY-MM) or '', a driver id ('-': no driver recorded) or '',
 * and a site (geofence id) and local day (YYYY-MM-DD) or '' (sites.html: one site-day's visits).
 */
export interface Drill {
  month: string;
  driver: string;
  site: string;
  day: string;
}

/** Query parameters of a report request ('' and null are left out). */
export type Query = Record<string, string | number | null | undefined>;

/** A row of any report, for code that works on every report. */
export type AnyRow = Record<string, Cell>;

/** A chart of a section: its x column, the y columns summed (or counted) per x. */
export interface ChartSpec<R = AnyRow, C extends string = string> {
  type?: 'bar' | 'doughnut';
  x: C;
  y: C[];
  labels?: string[];
  agg?: 'count';
  sortX?: boolean;
  axes?: ('y' | 'y2')[];
  yTitle?: string;
  y2Title?: string;
  percent?: boolean;
  horizontal?: boolean;
  rows?(rows: R[]): R[];
  /** A line above the chart saying what it shows (the period of its rows, their coverage). */
  caption?(rows: R[]): string;
}

/** How renderTable shows a report's rows (methods: the columns of one report narrow them). */
export interface TableOpts<R = AnyRow, C extends string = string> {
  /** Column names not shown (default: zone). */
  hide?: readonly C[];
  cellClass?(col: C, value: Cell | undefined, row: R): string;
  /** The cell's content when it needs more than text (a list, a badge), or null; `text` is how it reads. */
  cellNode?(col: C, value: Cell | undefined, row: R, text: string): Node | null;
  /** The href of a drill-down link in the cell, or null. */
  link?(col: C, row: R): string | null;
  /** The message when there are no rows. */
  empty?: string;
  /** The API's row count and sums over all rows (the rows may be one page). */
  total?: number;
  totals?: Record<string, number | null>;
  /** Of the total columns, the rows with no value (blank): the total then covers only the others. */
  totalsBlank?: Record<string, number>;
  /** The table's name for screen readers (its scrolling region). */
  name?: string;
  /** When the rows are one page of more: where it starts, its size, and how to load another. */
  pager?: Pager;
}

/** A request for one page of a report, sorted by the server. */
export interface PageRequest {
  offset: number;
  limit: number;
  sort?: string;
  dir?: 'asc' | 'desc';
}

/** The paging of a table whose rows are one page of a report. */
export interface Pager {
  offset: number;
  limit: number;
  load(q: PageRequest): Promise<{
    rows: readonly AnyRow[];
    total: number;
    totals: Record<string, number | null>;
    totals_blank?: Record<string, number>;
    offset?: number;
  }>;
}

/** The parts of a section a custom renderer draws into. */
export interface SectionParts {
  tableDiv: HTMLElement;
  canvas: HTMLCanvasElement | null;
  status: StatusAnswer;
  /** Every row of the section's report (the answer is its first page). */
  all(): Promise<AnyRow[]>;
  /** False once a newer filter has replaced the one this answer is for. */
  current(): boolean;
}

/**
 * A report section of a page (chart + table + downloads) of report N whose rows are R and
 * columns C. Callbacks are methods, so a section of one report is also a GenericSection.
 */
export interface SectionOf<N extends string, R, C extends string> {
  id: string;
  title: string;
  report: N;
  /** Above the chart; a function of the answer where it states the answer's settings. */
  note?: string | ((result: ReportAnswer<unknown>) => string);
  chart?: ChartSpec<R, C>;
  /** false: no table. */
  table?: false;
  tableOpts?: TableOpts<R, C> | ((f: Filter, d: Drill) => TableOpts<R, C>);
  /** More query parameters. */
  extra?(): Query;
  /** Shown only when true. */
  when?(f: Filter, d: Drill): boolean;
  /** A title that follows the filter. */
  heading?(f: Filter, d: Drill): string;
  /** The parameters instead of the filter (a drill-down). */
  query?(f: Filter, d: Drill): Query;
  render?(result: ReportAnswer<R>, parts: SectionParts): void | Promise<void>;
}

/** A section of report N: its chart, table options and renderer see that report's rows. */
export type Section<N extends ReportName> = SectionOf<N, ReportRow<N>, ColumnOf<N>>;

/** A section as page.js handles them all: rows of any report. */
export type GenericSection = SectionOf<ReportName, AnyRow, string>;

/** A section of any report: `report` picks the row type of its chart, table options and render. */
export type AnySection = { [N in ReportName]: Section<N> }[ReportName];

/** A page header hook: drawn on every filter change. */
export type HeaderHook = (
  box: HTMLElement,
  status: StatusAnswer,
  filter: Filter,
  drill: Drill,
) => void | Promise<void>;

export interface PageSpec {
  title: string;
  sections: AnySection[];
  header?: HeaderHook;
}

export type { ColumnDef };
