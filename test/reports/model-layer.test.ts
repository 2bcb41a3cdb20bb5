/**
 * The model layer (queries/models/): each business rule is written in exactly one SQL file, the
 * reports select from the models instead of the raw tables, and every reason a model gives is a
 * code of the one vocabulary (reason_codes.sql) — the exports carry the code, the label goes with it.
 *
 * The rules are found by what their SQL must say: the flagged odometer window names
 * odometer_reset / terminal_has_changed; the counted fuel window compares or null-tests the counter
 * readings (or the level estimate); the local months of a range take the month of a range day
 * (date_trunc('month', …) or strftime(…, '%Y-%m')), the month of a local instant, or a month's end
 * (INTERVAL 1 MONTH); the local days of a range take the day after to_day. Comments are prose
 * and do not count; for the column names, string literals do not count either (a reason code is a
 * string, not the rule).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportParams } from '../../src/reports/params.ts';
import { MODELS, reasonCodes, requireReport, runReport, type ReportScope } from '../../src/reports/run.ts';
import { QUERIES_DIR } from '../../src/store/queries.ts';
import { appendRows } from '../../src/store/write.ts';
import {
  ACCOUNT,
  APR_12,
  APR_START,
  MAR_START,
  NOW,
  T,
  ZONE,
  openFixture,
  type FixtureDb,
} from '../helpers/report-fixture.ts';

const withoutComments = (sql: string) => sql.replace(/--[^\n]*/g, '');
const withoutStrings = (sql: string) => sql.replace(/'(?:[^']|'')*'/g, "''");

interface Rule {
  name: string;
  home: string;
  /** Tested on the SQL without comments; `code` also without string literals. */
  code?: RegExp[];
  text?: RegExp[];
}

const RULES: Rule[] = [
  {
    name: 'the odometer window is flagged',
    home: 'models/odometer_windows.sql',
    code: [/\b(odometer_reset|terminal_has_changed)\b/i],
  },
  {
    name: 'the fuel window counts',
    home: 'models/fuel_windows.sql',
    code: [
      /\bcounter_(start|end)_l\s*(<|>|=|<>|!=|\bIS\b)/i,
      /(<|>|=)\s*([a-z_]\w*\.)?counter_(start|end)_l\b/i,
      /\bestimated_used_l\s+IS\b/i,
    ],
  },
  {
    name: 'the local months (and days) a range touches',
    home: 'models/local_calendar.sql',
    text: [
      /date_trunc\(\s*'month'/i,
      /INTERVAL\s+1\s+MONTH/i,
      /'%Y-%m'\s*\)/i,
      // the local days of a range as instants
      /\(\s*\$?to_day::DATE\s*\+\s*1\s*\)/i,
    ],
  },
];

const sqlFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sqlFiles(join(dir, e.name)) : e.name.endsWith('.sql') ? [join(dir, e.name)] : [],
  );

/** The files (relative to queries/, schema left out: it declares the columns) that state the rule. */
function filesStating(rule: Rule, files: Record<string, string>): string[] {
  return Object.entries(files)
    .filter(([, sql]) => {
      const text = withoutComments(sql);
      const code = withoutStrings(text);
      return (rule.code ?? []).some((re) => re.test(code)) || (rule.text ?? []).some((re) => re.test(text));
    })
    .map(([name]) => name)
    .sort();
}

const queryFiles = (): Record<string, string> =>
  Object.fromEntries(
    sqlFiles(QUERIES_DIR)
      .map((f) => [relative(QUERIES_DIR, f), readFileSync(f, 'utf8')] as const)
      .filter(([name]) => !name.startsWith('schema/')),
  );

describe('each business rule is written in exactly one SQL file', () => {
  it('finds the rules the reports used to restate (the check can fail)', () => {
    // spellings from the reports before the model layer
    const old = {
      'reports/mileage.sql': `SELECT (o.odometer_reset OR o.terminal_has_changed) AS flagged FROM odometer_windows AS o
        WHERE strftime(timezone($zone, o.window_start), '%Y-%m')
          BETWEEN strftime($from_day::DATE, '%Y-%m') AND strftime($to_day::DATE, '%Y-%m')`,
      'reports/fuel.sql': `SELECT count(*) FILTER (WHERE NOT coalesce(f.counter_end_l >= f.counter_start_l, false))`,
      'reports/fuel_windows.sql': `CASE WHEN f.counter_start_l IS NULL OR f.counter_end_l IS NULL THEN 'left out'
        WHEN f.estimated_used_l IS NULL THEN 'no reading' END`,
      'reports/kpis.sql': `SELECT timezone($zone, date_trunc('month', $from_day::DATE)::TIMESTAMP) AS m0`,
      'reports/trips.sql': `SELECT timezone($zone, ($to_day::DATE + 1)::TIMESTAMP) AS t1`,
      'reports/top_vehicles.sql': `sum(f.counter_end_l - f.counter_start_l) FILTER (WHERE f.counter_end_l >= f.counter_start_l)`,
      'reports/excluded_windows.sql': `-- odometer_reset, counter_end_l < counter_start_l and '%Y-%m') are prose here
        SELECT 'odometer_reset' AS reason`,
    };
    expect(RULES.map((r) => filesStating(r, old))).toEqual([
      ['reports/mileage.sql'],
      ['reports/fuel.sql', 'reports/fuel_windows.sql', 'reports/top_vehicles.sql'],
      ['reports/kpis.sql', 'reports/mileage.sql', 'reports/trips.sql'],
    ]);
  });

  it.each(RULES.map((r) => [r.name, r] as const))('%s: only in its model file', (_name, rule) => {
    expect(filesStating(rule, queryFiles())).toEqual([rule.home]);
  });

  it('the reports read the windows through the models, never the raw tables', () => {
    const files = queryFiles();
    const rawReaders = Object.entries(files)
      .filter(([, sql]) =>
        /\b(FROM|JOIN)\s+(odometer_windows|fuel_consumed|fuel_level)\b/i.test(withoutComments(sql)),
      )
      .map(([name]) => name)
      .sort();
    expect(rawReaders).toEqual(['models/fuel_windows.sql', 'models/odometer_windows.sql']);
    for (const r of [
      'mileage',
      'mileage_windows',
      'fuel',
      'fuel_windows',
      'excluded_windows',
      'excluded_odometer_windows',
      'excluded_fuel_windows',
      'kpis',
      'top_vehicles',
    ])
      expect(files[`reports/${r}.sql`], r).toMatch(
        /\b(odometer_windows_classified|fuel_windows_classified|left_out_windows)\(/,
      );
    // every model file is loaded on a report connection
    expect(
      Object.keys(files)
        .filter((n) => n.startsWith('models/'))
        .map((n) => n.slice('models/'.length, -'.sql'.length))
        .sort(),
    ).toEqual([...MODELS].sort());
  });
});

describe('one vocabulary of reason codes', () => {
  let fx: FixtureDb;
  const scope: ReportScope = { account: ACCOUNT, zone: ZONE, nowMs: NOW };
  const run = async (name: string, raw: Record<string, string>) => {
    const def = requireReport(name);
    return (await runReport(fx.con, def, scope, parseReportParams(raw, def, scope))).rows;
  };
  const RANGE = { from: '2026-03-01', to: '2026-04-30' };

  beforeAll(async () => {
    fx = await openFixture();
    // every reason at least once: both odometer flags in one window, a missing counter reading,
    // a level window without an estimate (vehicle 3 has a level sensor and no counter)
    await appendRows(fx.con, 'odometer_windows', [
      {
        account: ACCOUNT,
        vehicle_id: 2,
        window_start: MAR_START,
        window_end: T('2026-03-01T13:00:00Z'),
        distance_m: 5,
        odometer_reset: true,
        terminal_has_changed: true,
      },
    ]);
    await appendRows(fx.con, 'fuel_consumed', [
      {
        account: ACCOUNT,
        vehicle_id: 2,
        window_start: MAR_START,
        window_end: APR_START,
        counter_start_l: null,
        counter_end_l: 40,
        fuel_consumed_l: null,
      },
    ]);
    await appendRows(fx.con, 'fuel_level', [
      { account: ACCOUNT, vehicle_id: 3, window_start: APR_12, window_end: T('2026-04-12T14:00:00Z') },
    ]);
  });
  afterAll(() => fx?.close());

  it('every reason the reports give is a code of reason_codes, and its label is what the dashboard reads', async () => {
    const codes = await reasonCodes(fx.con);
    const label = new Map(codes.map((c) => [c.code, c.label]));
    const excluded = await run('excluded_windows', RANGE);
    const given = new Set([
      ...excluded.map((r) => r.reason),
      ...(await run('mileage_windows', RANGE)).map((r) => r.reason).filter((r) => r !== null),
      ...(await run('excluded_odometer_windows', RANGE)).map((r) => r.reason),
      ...(await run('excluded_fuel_windows', RANGE)).map((r) => r.reason),
    ]);
    expect([...given].sort()).toEqual([
      'fuel_counter_missing',
      'fuel_counter_went_down',
      'odometer_reset',
      'odometer_reset and terminal_has_changed',
      'terminal_has_changed',
    ]);
    for (const g of given) expect(label.has(g as string), String(g)).toBe(true);
    for (const r of excluded)
      expect(codes.find((c) => c.code === r.reason)!.stream, String(r.reason)).toBe(r.stream);
    // fuel_windows carries the labels of the same codes ("left out" and "no reading" windows)
    const fw = await run('fuel_windows', RANGE);
    expect(
      fw
        .filter((r) => r.status !== 'counted')
        .map((r) => [r.status, r.reason])
        .sort(),
    ).toEqual([
      ['left out', label.get('fuel_counter_missing')],
      ['left out', label.get('fuel_counter_went_down')],
      ['no reading', label.get('fuel_level_missing')],
    ]);
    expect(label.get('fuel_counter_went_down')).toBe('counter went down');
  });

  it('the README lists the vocabulary as it is', async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const table = readme.slice(readme.indexOf('| Code | Stream | Label |'));
    const rows = [...table.matchAll(/^\| `([^`]+)` \| (\w+) \| ([^|(]+?)\s*(\(.*\))? \|$/gm)].map((m) => ({
      code: m[1],
      stream: m[2],
      label: m[3],
    }));
    expect(rows.slice(0, (await reasonCodes(fx.con)).length)).toEqual(
      [...(await reasonCodes(fx.con))].sort(
        (a, b) => readme.indexOf(`| \`${a.code}\` |`) - readme.indexOf(`| \`${b.code}\` |`),
      ),
    );
  });

  it('the codes and labels are written only in the model layer', () => {
    const literal = (s: string) => new RegExp(`'${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}'`);
    const files = queryFiles();
    for (const code of [
      'odometer_reset',
      'terminal_has_changed',
      'fuel_counter_went_down',
      'fuel_counter_missing',
    ])
      expect(
        Object.keys(files).filter((n) => literal(code).test(withoutComments(files[n]!))),
        code,
      ).toEqual(n(code));
    function n(code: string) {
      return code.startsWith('fuel')
        ? ['models/fuel_windows.sql', 'models/reason_codes.sql']
        : ['models/odometer_windows.sql', 'models/reason_codes.sql'];
    }
    for (const l of ['counter went down', 'counter reading missing', 'no level estimate', 'tracker changed'])
      expect(
        Object.keys(files).filter((f) => literal(l).test(withoutComments(files[f]!))),
        l,
      ).toEqual(['models/reason_codes.sql']);
  });
});
