/**
 * The model layer (queries/models/): each business rule is written in exactly one SQL file, the
 * reports select from the models instead of the raw tables, and every reason a model gives is a
 * code of the one vocabulary (reason_codes.sql) — the exports carry the code, the label goes with it.
 *
 * The rules are found by what their SQL must say: the flagged odometer window names
 * odometer_reset / terminal_has_changed; the counted fuel window compares or null-tests the counter
 * readings (or the level estimate); the local months of a range take the month of a range day
 * (date_trunc('month', …) or strftime(…, '%Y-%m')), the month of a local instant, or a month's end
 * (INTERVAL 1 MONTH); the local days of a range take the day after to_day; the odometer distance
 * that counts takes distance_m on a condition (THEN …, FILTER) or defines counted_m; what a booking
 * status means names a status ('BOOKING_STATUS_…') or compares returned_at; the toll passage reads
 * is_toll; the vehicle / department filter tests its parameter for NULL or compares a column with
 * it (the filter's model, selection.sql, is then used by every report given one). Comments are prose
 * and do not count; for the column names, string literals do not count either (a reason code is a
 * string, not the rule).
 *
 * The sync states no rule either: it asks the models (src/sync/rules.ts, queries/sync/) whether a
 * window is flagged, and stores the reason code they give as the ledger's reason. A TypeScript
 * copy is found by what it must do with the API's fields: combine or test the odometer flags, or
 * compare or null-test the counter readings (the simulator, the independent mock, is left out).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reasonCodes } from '../../src/reports/run.ts';
import { MODELS } from '../../src/store/models.ts';
import { QUERIES_DIR } from '../../src/store/queries.ts';
import { modelRules } from '../../src/sync/rules.ts';
import { appendRows } from '../../src/store/write.ts';
import {
  ACCOUNT,
  APR_12,
  APR_START,
  MAR_START,
  T,
  openFixture,
  reportRows,
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
  {
    name: 'the odometer distance that counts',
    home: 'models/odometer_windows.sql',
    code: [
      // a window's distance_m taken or summed on a condition, or the counted column defined
      /\bTHEN\s+([a-z_]\w*\.)?distance_m\b/i,
      /\bsum\(\s*([a-z_]\w*\.)?distance_m\s*\)\s*FILTER\b/i,
      /\bAS\s+counted_m\b/i,
    ],
  },
  {
    name: 'what a booking status means (late, checked out, declined, cancelled, pending, decided, booked)',
    home: 'models/booking_status.sql',
    // a booking status named, or lateness read from the return time
    text: [/'BOOKING_STATUS_\w*'/],
    code: [/\breturned_at\s*(<|>|=|<>|!=)/i, /(<|>|=)\s*([a-z_]\w*\.)?returned_at\b/i],
  },
  {
    name: 'a geofence visit is a toll passage',
    home: 'models/toll_passages.sql',
    code: [/\bis_toll\b/i],
  },
  {
    name: 'the vehicles a vehicle / department filter selects',
    home: 'models/selection.sql',
    code: [
      // "no filter, or this one": a parameter (or a macro's) tested for NULL
      /\$(vehicle|department)(::\w+)?\s+IS\s+NULL\b/i,
      /(?<![\w.$])(sel_)?(vehicle|department)\s+IS\s+NULL\s+OR\b/i,
      // a column compared with the parameter
      /=\s*\$(vehicle|department)\b/i,
      /\$(vehicle|department)(::\w+)?\s*=/i,
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
    expect(RULES.slice(0, 3).map((r) => filesStating(r, old))).toEqual([
      ['reports/mileage.sql'],
      ['reports/fuel.sql', 'reports/fuel_windows.sql', 'reports/top_vehicles.sql'],
      ['reports/kpis.sql', 'reports/mileage.sql', 'reports/trips.sql'],
    ]);
  });

  it('finds the counting, booking, toll and filter rules the reports used to restate (the check can fail)', () => {
    // spellings from the reports and models before issue 26 (and the copies they would be)
    const old = {
      'reports/tolls.sql': `FROM geofence_visits AS gv
        LEFT JOIN geofences AS g ON g.account = gv.account AND g.geofence_id = gv.geofence_id
        WHERE gv.account = $account AND coalesce(g.is_toll, gv.is_toll, false)
          AND ($vehicle::BIGINT IS NULL OR gv.vehicle_id = $vehicle::BIGINT)
          AND ($department::VARCHAR IS NULL OR veh.department = $department::VARCHAR)`,
      'reports/kpis.sql': `veh AS (SELECT * FROM vehicle_departments($account)
        WHERE ($vehicle::BIGINT IS NULL OR vehicle_id = $vehicle::BIGINT))`,
      'reports/setup_health.sql': `WHERE cd.account = $account AND $vehicle::BIGINT IS NULL`,
      'models/coverage.sql': `WHERE (vehicle IS NULL OR c.vehicle_id = vehicle)
        AND (department IS NULL OR v.department = department)`,
      'reports/carpool.sql': `b.booking_status IN ('BOOKING_STATUS_ACTIVE_LATE', 'BOOKING_STATUS_RETURNED_LATE') AS is_late`,
      'reports/carpool_departments.sql': `sum(booked_h) FILTER (WHERE is_approved AND booking_status <> 'BOOKING_STATUS_CANCELLED')`,
      'reports/drivers.sql': `count(*) FILTER (WHERE b.returned_at > b.end_time) AS late_returns`,
      'reports/mileage.sql': `sum(CASE WHEN NOT (o.odometer_reset OR o.terminal_has_changed) THEN o.distance_m END)`,
      'reports/top_vehicles.sql': `sum(o.distance_m) FILTER (WHERE NOT o.flagged)`,
      // prose, labels, other columns tested for NULL and "is a filter given" are no rule
      'reports/vehicles.sql': `-- $vehicle::BIGINT IS NULL OR is_toll, 'BOOKING_STATUS_LATE' are prose here
        SELECT veh.department IS NULL OR x, cv.vehicle IS NULL OR y, 'is_toll' AS label,
          $vehicle::BIGINT IS NOT NULL AS filtered, round(x.distance_m / 1000.0, 3) AS reported_km`,
    };
    expect(RULES.slice(3).map((r) => filesStating(r, old))).toEqual([
      ['reports/mileage.sql', 'reports/top_vehicles.sql'],
      ['reports/carpool.sql', 'reports/carpool_departments.sql', 'reports/drivers.sql'],
      ['reports/tolls.sql'],
      ['models/coverage.sql', 'reports/kpis.sql', 'reports/setup_health.sql', 'reports/tolls.sql'],
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
    // the visits only as toll passages (the sync's planner counts the visits stored per day, and
    // the toll facts' refresh asks whether the account has any visit at all)
    expect(
      Object.entries(files)
        .filter(([, sql]) => /\b(FROM|JOIN)\s+(geofence_visits|geofences)\b/i.test(withoutComments(sql)))
        .map(([name]) => name)
        .sort(),
    ).toEqual(['models/toll_passages.sql', 'sync/facts_visits_any.sql', 'sync/history_rates.sql']);
    for (const r of ['tolls', 'toll_gantries'])
      expect(files[`reports/${r}.sql`], r).toMatch(/\btoll_passages\(/);
    // or through the daily facts, which the model computes from the toll passages (issue 29)
    for (const r of ['kpis', 'trend', 'top_vehicles'])
      expect(files[`reports/${r}.sql`], r).toMatch(/\bvehicle_day_facts\(/);
    // (with their charges: toll_passage_charges, from the toll passages; issue 29)
    expect(withoutComments(files['models/daily_facts.sql']!)).toMatch(/\btoll_passage_charges\(/);
    expect(withoutComments(files['models/prices.sql']!)).toMatch(/\btoll_passages\(/);
    // every report given a vehicle or department selects through the filter's model, or hands the
    // filter to a model macro that does (fleet_day_coverage, driver_months, …: found, not listed)
    const filterMacros = ['selected_vehicles', 'vehicle_selected'];
    for (const [, sql] of Object.entries(files).filter(([n]) => n.startsWith('models/')))
      for (const m of withoutComments(sql).matchAll(
        /CREATE OR REPLACE TEMP MACRO (\w+)\([^)]*\) AS[^;]*?;/gs,
      ))
        if (/\b(selected_vehicles|vehicle_selected)\(/.test(m[0]) && m[1] !== 'selected_vehicles')
          filterMacros.push(m[1]!);
    expect(filterMacros, 'model macros that apply the filter').toEqual(
      expect.arrayContaining(['fleet_day_coverage', 'driver_months']),
    );
    const filtering = Object.entries(files).filter(
      ([name, sql]) => name.startsWith('reports/') && /\$(vehicle|department)\b/.test(withoutComments(sql)),
    );
    expect(filtering.length).toBeGreaterThan(25);
    const through = new RegExp(`\\b(${[...new Set(filterMacros)].join('|')})\\(`);
    for (const [name, sql] of filtering) expect(withoutComments(sql), name).toMatch(through);
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
        /\b(odometer_windows_classified|fuel_windows_classified|left_out_windows|vehicle_day_facts)\(/,
      );
    // the daily facts (issue 29) are the classified windows' figures
    expect(withoutComments(files['models/daily_facts.sql']!)).toMatch(/\bodometer_windows_classified\(/);
    expect(withoutComments(files['models/daily_facts.sql']!)).toMatch(/\bfuel_windows_sourced\(/);
    // every model file is loaded on a report connection
    expect(
      Object.keys(files)
        .filter((n) => n.startsWith('models/'))
        .map((n) => n.slice('models/'.length, -'.sql'.length))
        .sort(),
    ).toEqual([...MODELS].sort());
  });
});

/** A report's rows on a fixture database, as of the fixture's clock. */
const rowsOn = (fx: FixtureDb, name: string, raw: Record<string, string>) => reportRows(fx.con, name, raw);

describe('the vehicle / department filter (queries/models/selection.sql)', () => {
  let fx: FixtureDb;
  const run = (name: string, raw: Record<string, string>) => rowsOn(fx, name, raw);
  const APRIL = { from: '2026-04-01', to: '2026-04-30' };

  beforeAll(async () => {
    fx = await openFixture();
    // a trip of a vehicle neither vehicle list knows (the fixture's trips: t1 of vehicle 1, Sales;
    // t2 of vehicle 3, department '@x')
    await appendRows(fx.con, 'trips', [
      {
        account: ACCOUNT,
        trip_id: 't9',
        vehicle_id: 99,
        registration: 'zz 999',
        start_time: T('2026-04-03T00:00:00Z'),
        end_time: T('2026-04-03T01:00:00Z'),
        trip_distance_m: 1000,
      },
    ]);
  });
  afterAll(() => fx?.close());

  it('no filter keeps a vehicle no list knows; a vehicle, a department or both select as written', async () => {
    const trips = async (sel: Record<string, string>) =>
      (await run('trips', { ...APRIL, ...sel })).map((r) => r.trip_id);
    expect(await trips({})).toEqual(['t1', 't2', 't9']);
    expect(await trips({ vehicle: '99' })).toEqual(['t9']);
    expect(await trips({ department: 'Sales' })).toEqual(['t1']);
    expect(await trips({ vehicle: '1', department: 'Sales' })).toEqual(['t1']);
    expect(await trips({ vehicle: '1', department: 'Ops' })).toEqual([]);
    // the selected (known) vehicles: 1, 2 and 3; Sales is vehicle 1
    const vehicles = async (sel: Record<string, string>) =>
      (await run('kpis', { ...APRIL, ...sel }))[0]!.vehicles;
    expect([
      await vehicles({}),
      await vehicles({ department: 'Sales' }),
      await vehicles({ vehicle: '2' }),
    ]).toEqual([3, 1, 1]);
  });
});

describe('one vocabulary of reason codes', () => {
  let fx: FixtureDb;
  const run = (name: string, raw: Record<string, string>) => rowsOn(fx, name, raw);
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

  it('docs/reports.md lists the vocabulary as it is', async () => {
    const readme = readFileSync(new URL('../../docs/reports.md', import.meta.url), 'utf8');
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

/** TypeScript without its comments (a `//` after a colon is a URL, not a comment). */
const tsWithoutComments = (ts: string) =>
  ts.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/[^\n]*/g, '$1');
/** A TypeScript string literal (single, double or template quotes), its text in group 1, 2 or 3. */
const TS_STRING = /'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g;
/** What TypeScript does: without comments and string literals. */
const tsCode = (ts: string) => tsWithoutComments(ts).replace(TS_STRING, "''");
/** The string literals of TypeScript code (comments left out). */
const stringLiterals = (ts: string) =>
  [...tsWithoutComments(ts).matchAll(TS_STRING)].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
const FLAG = '(odometer_reset|terminal_has_changed)';
const COUNTER = '(counter_(start|end)_l|estimated(_fuel)?_used_l)';
const OP = String.raw`(\|\||&&|\?(?![.?])|[=!]==?|<=?|(?<!=)>=?)`;
/** A TypeScript copy of a rule: a flag or a reading beside a logical or comparison operator. */
const TS_RULE = [
  new RegExp(String.raw`\.${FLAG}\b\s*${OP}`),
  new RegExp(String.raw`(${OP}|(?<![\w)\]])!|\bif\s*\()\s*[\w.!]*\.${FLAG}\b`),
  new RegExp(String.raw`\.${COUNTER}\b\s*${OP}`),
  new RegExp(String.raw`${OP}\s*[\w.!]*\.${COUNTER}\b`),
];
const tsFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
const statesRule = (ts: string) => TS_RULE.some((re) => re.test(tsCode(ts)));

describe('the sync states no rule: it asks the model layer', () => {
  const SRC = new URL('../../src/', import.meta.url).pathname;

  it('finds the copies the sync used to keep (the check can fail)', () => {
    // the sync's own copies before it asked the models, and what moving the fields is
    const old = {
      odometerStatus: `if (o.odometer_reset || o.terminal_has_changed) { return 'flagged'; }`,
      odometerReason: `const why = [o.odometer_reset && 'odometer_reset', o.terminal_has_changed && 'x'];`,
      odometerSplit: `if (o && (o.odometer_reset || o.terminal_has_changed)) split();`,
      oneFlag: `if (!o.terminal_has_changed) return null;`,
      wentDown: `const wentDown = (f) => f.counter_start_l !== null && f.counter_end_l !== null && f.counter_end_l < f.counter_start_l;`,
      counts: `return f.counter_end_l >= f.counter_start_l ? 'counted' : 'left out';`,
      level: `const none = (f) => f.estimated_fuel_used_l === null;`,
      moved: `({ odometer_reset: o!.odometer_reset, counter_start_l: f.counter_start_l, x: (f) => f.counter_end_l })`,
      asked: `ask('sync/odometer_flag', [o.odometer_reset, o.terminal_has_changed]) // o.odometer_reset || x`,
    };
    expect(Object.entries(old).map(([k, ts]) => [k, statesRule(ts)])).toEqual([
      ['odometerStatus', true],
      ['odometerReason', true],
      ['odometerSplit', true],
      ['oneFlag', true],
      ['wentDown', true],
      ['counts', true],
      ['level', true],
      ['moved', false],
      ['asked', false],
    ]);
  });

  it('no TypeScript under src/ (the simulator aside) restates a rule or writes a reason', async () => {
    const files = tsFiles(SRC).filter((f) => !relative(SRC, f).startsWith('simulator/'));
    expect(files.length).toBeGreaterThan(50);
    expect(files.filter((f) => statesRule(readFileSync(f, 'utf8'))).map((f) => relative(SRC, f))).toEqual([]);
    const fx = await openFixture();
    try {
      const vocabulary = await reasonCodes(fx.con);
      // A literal that is a code or a label writes a reason (the codes that are also the API's
      // field names aside: a type names the field), and so do the free texts the ledger had.
      const fields = new Set(['odometer_reset', 'terminal_has_changed']);
      const words = new Set(vocabulary.flatMap((c) => [c.code, c.label]).filter((w) => !fields.has(w)));
      const old = ['(counter reset)', 'odometer_reset, terminal_has_changed'];
      const writing = files.flatMap((f) =>
        stringLiterals(readFileSync(f, 'utf8'))
          .filter((lit) => words.has(lit) || old.some((w) => lit.includes(w)))
          .map((lit) => `${relative(SRC, f)}: ${lit}`),
      );
      expect(writing).toEqual([]);
    } finally {
      fx.close();
    }
  });

  it('the rules the sync asks give the codes the reports give the same windows, and only flagged ones', async () => {
    const fx = await openFixture();
    const rules = modelRules(fx.db);
    try {
      const vocabulary = await reasonCodes(fx.con);
      const streamOf = new Map(vocabulary.map((c) => [c.code, c.stream]));
      const odometer = await Promise.all(
        [
          [false, false],
          [true, false],
          [false, true],
          [true, true],
        ].map(([r, t]) => rules.odometerFlag({ odometer_reset: r!, terminal_has_changed: t! })),
      );
      expect(odometer).toEqual([
        null,
        'odometer_reset',
        'terminal_has_changed',
        'odometer_reset and terminal_has_changed',
      ]);
      // litres at the start and end of a window: 1000 → 1040 counts, 1040 → 3 is a counter reset;
      // a missing reading is left out of fuel used but is no jump for the sync to narrow
      const fuel = await Promise.all(
        [
          [1000, 1040],
          [1040, 1040],
          [1040, 3],
          [1040, 1039.9],
          [null, 40],
          [40, null],
        ].map(([a, b]) => rules.fuelCounterWentDown({ counter_start_l: a!, counter_end_l: b! })),
      );
      expect(fuel).toEqual([null, null, 'fuel_counter_went_down', 'fuel_counter_went_down', null, null]);
      for (const c of odometer.filter((x) => x !== null)) expect(streamOf.get(c), c).toBe('odometer');
      expect(streamOf.get('fuel_counter_went_down')).toBe('fuel_consumed');
      // the same windows stored: the reports list them with the same codes (excluded_windows
      // keeps the ledger's reason beside the report's)
      const RANGE = { from: '2026-03-01', to: '2026-04-30' };
      const rows = await reportRows(fx.con, 'excluded_windows', RANGE);
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) {
        const stored = (
          await fx.con.runAndReadAll(
            `SELECT odometer_reset, terminal_has_changed FROM odometer_windows WHERE vehicle_id = $1 AND window_start = $2::TIMESTAMPTZ`,
            [Number(r.vehicle_id), String(r.window_start)],
          )
        ).getRowObjectsJS()[0];
        if (r.stream === 'odometer')
          expect(
            await rules.odometerFlag({
              odometer_reset: stored!.odometer_reset === true,
              terminal_has_changed: stored!.terminal_has_changed === true,
            }),
          ).toBe(r.reason);
        else
          expect(
            await rules.fuelCounterWentDown({
              counter_start_l: r.counter_start_l as number | null,
              counter_end_l: r.counter_end_l as number | null,
            }),
          ).toBe(r.reason === 'fuel_counter_went_down' ? r.reason : null);
      }
    } finally {
      await rules.close();
      fx.close();
    }
  });
});
