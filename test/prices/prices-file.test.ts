/**
 * The prices file (FLEETSYNC_PRICES) on the hand-filled report fixture (Australia/Sydney, toll
 * gantry g-toll, vehicles 1–3): a bad file, JSON or CSV, is refused with ONE message listing every
 * problem with its line — missing column, negative price, overlapping validity, unknown fuel type,
 * unknown geofence — and the prices stored before stay exactly as they were; `export` exits 2.
 * A good file's tariffs apply by the passage's LOCAL day (the visit at 00:30 on 1 April local is
 * still 31 March in UTC).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFleetsyncError } from '../../src/errors.ts';
import { loadPricesFile } from '../../src/prices/store.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport } from '../../src/reports/run.ts';
import { runMain } from '../helpers/cli.ts';
import { ACCOUNT, NOW, ZONE, openFixture, type FixtureDb } from '../helpers/report-fixture.ts';

let fx: FixtureDb;
beforeAll(async () => {
  fx = await openFixture();
});
afterAll(() => fx?.close());

const write = (name: string, text: string) => {
  const p = join(fx.dir, name);
  writeFileSync(p, text);
  return p;
};
const load = (path: string) => loadPricesFile(fx.con, ACCOUNT, { pricesFile: path }, NOW);
const dump = async () => {
  const out: Record<string, unknown[]> = {};
  for (const t of ['price_source', 'price_fuel', 'price_tolls', 'price_vehicles', 'price_emission_factors'])
    out[t] = (await fx.con.runAndReadAll(`SELECT * FROM ${t} ORDER BY ALL`)).getRowObjectsJson();
  return out;
};
const refused = async (path: string): Promise<string> => {
  try {
    await load(path);
  } catch (e) {
    expect(isFleetsyncError(e, 'E_CONFIG')).toBe(true);
    return (e as Error).message;
  }
  throw new Error('the file was accepted');
};
const report = async (name: string) => {
  const scope = { account: ACCOUNT, zone: ZONE, nowMs: NOW };
  const def = requireReport(name);
  return (await runReport(fx.con, def, scope, parseReportParams({ month: '2026-04' }, def, scope))).rows;
};

const GOOD = {
  currency: 'AUD',
  defaults: { fuel_type: 'diesel', vehicle_class: 'light' },
  fuel_prices: [{ fuel_type: 'diesel', month: '2026-04', price_per_l: 2 }],
  toll_tariffs: [
    { geofence_id: 'g-toll', vehicle_class: 'light', valid_from: '2026-01-01', charge: 4 },
    { geofence_id: 'g-toll', vehicle_class: 'light', valid_from: '2026-04-01', charge: 6.5 },
  ],
  vehicles: [{ registration: 'CD456GP', vehicle_class: 'heavy' }],
};

describe('a good prices file', () => {
  it('charges each passage by the tariff of its local day; a class without a tariff is blank and "no tariff"', async () => {
    await load(write('good.json', JSON.stringify(GOOD, null, 2)));
    const rows = await report('toll_charges');
    // vehicle 1: 31 Mar 23:30 local (old tariff; not in April), 1 Apr 00:30 local (new tariff);
    // vehicle 2 (heavy, no heavy tariff): 5 Apr.
    expect(
      rows.map((r) => [r.vehicle_id, r.local_date, r.charge, r.tariff_status, r.tariff_valid_from]),
    ).toEqual([
      [1, '2026-04-01', 6.5, 'tariff', '2026-04-01'],
      [2, '2026-04-05', null, 'no_tariff', null],
    ]);
    // the fixture's ledger has no toll-visit windows: the month's passages and charges are unknown
    const unsynced = (await report('costs')).find((r) => r.vehicle_id === 1)!;
    expect([unsynced.toll_passages, unsynced.toll_charges, unsynced.toll_charges_known]).toEqual([
      null,
      null,
      null,
    ]);
    await fx.con.run(
      `INSERT INTO ledger (account, stream, scope, window_start, window_end, status, fetched_at, run_id)
       VALUES ($1, 'visits', '*', '2026-03-31T13:00:00Z', '2026-04-01T13:00:00Z', 'done', now(), 'run-1')`,
      [ACCOUNT],
    );
    const costs = await report('costs');
    const v2 = costs.find((r) => r.vehicle_id === 2)!;
    expect([v2.vehicle_class, v2.toll_passages, v2.toll_no_tariff, v2.toll_charges]).toEqual([
      'heavy',
      1,
      1,
      null,
    ]);
    const v1 = costs.find((r) => r.vehicle_id === 1)!;
    expect([v1.toll_charges, v1.currency]).toEqual([6.5, 'AUD']);
  });
});

describe('a bad prices file', () => {
  it('JSON: every problem at once, with its line; nothing stored changes', async () => {
    await load(write('good.json', JSON.stringify(GOOD, null, 2)));
    const before = await dump();
    const bad = `{
  "defaults": { "fuel_type": "diesel", "vehicle_class": "light" },
  "fuel_prices": [
    { "fuel_type": "diesel", "month": "2026-04", "price_per_l": -1.5 },
    { "fuel_type": "kerosene", "month": "2026-04", "price_per_l": 2 },
    { "fuel_type": "diesel", "month": "2026-05" }
  ],
  "toll_tariffs": [
    { "geofence_id": "g-toll", "vehicle_class": "light", "valid_from": "2026-01-01", "valid_to": "2026-04-30", "charge": 4 },
    { "geofence_id": "g-toll", "vehicle_class": "light", "valid_from": "2026-04-01", "charge": 5 },
    { "geofence_id": "g-nowhere", "vehicle_class": "light", "valid_from": "2026-01-01", "charge": 2 },
    { "geofence_id": "g-depot", "vehicle_class": "light", "valid_from": "2026-01-01", "charge": 2 }
  ]
}`;
    const msg = await refused(write('bad.json', bad));
    expect(msg).toContain('bad.json: 6 problems; nothing was changed');
    expect(msg).toContain('bad.json:4: price_per_l must not be negative (got -1.5)');
    expect(msg).toContain('bad.json:5: unknown fuel type "kerosene"');
    expect(msg).toContain('bad.json:6: price_per_l is missing');
    expect(msg).toMatch(/bad\.json:10: overlapping validity: .* overlaps the one on line 9/);
    expect(msg).toContain('bad.json:11: unknown geofence "g-nowhere"');
    expect(msg).toContain('bad.json:12: unknown geofence "g-depot"'); // not a toll gantry
    expect(await dump()).toEqual(before);
  });

  it('CSV: a missing column and the row problems, in one message; nothing stored changes', async () => {
    const before = await dump();
    const csv = [
      'record,fuel_type,vehicle_class,month,geofence_id,valid_from,price',
      'default,diesel,light,,,,',
      'fuel_price,diesel,,2026-04,,,1.95',
      'fuel_price,diesel,,2026-04,,,1.99',
      'fuel_price,lpg,,2026-04,,,1.10',
      'toll_tariff,,light,,g-toll,2026-04-01,-3',
      'vehicle,,heavy,,,,',
      'emission_factor,lpg,,,,,',
    ].join('\n');
    const msg = await refused(write('bad.csv', csv));
    expect(msg.split('\n').slice(1)).toEqual([
      '  bad.csv:1: missing column vehicle (needed by the vehicle rows)',
      '  bad.csv:1: missing column factor (needed by the emission_factor rows)',
      '  bad.csv:4: overlapping validity: a second price for diesel in 2026-04 (also on line 3)',
      '  bad.csv:5: unknown fuel type "lpg" (known: diesel, petrol, electric)',
      '  bad.csv:6: charge must not be negative (got -3)',
    ]);
    expect(await dump()).toEqual(before);
  });

  it('a good CSV loads like the JSON', async () => {
    const csv = [
      'record,fuel_type,vehicle_class,month,geofence_id,valid_from,valid_to,vehicle,price,factor',
      'default,petrol,light,,,,,,,',
      'fuel_price,petrol,,2026-04,,,,,2.10,',
      'toll_tariff,,light,,g-toll,2026-01-01,,,4.40,',
      'vehicle,diesel,,,,,,ab 123 gp,,',
      'emission_factor,diesel,,,,,,,,2.7',
      'grid_factor,,,,,,,,,0.6',
    ].join('\r\n');
    await load(write('good.csv', csv));
    const d = await dump();
    expect(d.price_fuel).toEqual([
      { account: ACCOUNT, fuel_type: 'petrol', period: '2026-04', price_per_l: 2.1 },
    ]);
    expect(d.price_vehicles).toEqual([
      { account: ACCOUNT, vehicle_id: '1', fuel_type: 'diesel', vehicle_class: null },
    ]);
    expect(d.price_emission_factors).toContainEqual({ account: ACCOUNT, fuel_type: 'diesel', kg_per_l: 2.7 });
    expect(d.price_emission_factors).toContainEqual({
      account: ACCOUNT,
      fuel_type: 'petrol',
      kg_per_l: 2.31,
    });
  });

  it('`export` with a bad file exits 2 naming the problems, and writes nothing', async () => {
    const path = write(
      'neg.json',
      JSON.stringify({ ...GOOD, fuel_prices: [{ fuel_type: 'diesel', month: '2026-04', price_per_l: -2 }] }),
    );
    const before = await dump();
    fx.con.closeSync();
    fx.db.close();
    const out = join(fx.dir, 'costs.csv');
    const r = await runMain(
      {
        FLEETSYNC_DB: join(fx.dir, 'fleet.duckdb'),
        FLEETSYNC_ACCOUNT: ACCOUNT,
        FLEET_TIMEZONE: ZONE,
        FLEETSYNC_PRICES: path,
        FLEETSYNC_ENV_FILE: '/dev/null',
      },
      'export',
      'costs',
      '--month',
      '2026-04',
      '--out',
      out,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('neg.json:1: price_per_l must not be negative (got -2)');
    // serve refuses to start with it too (no dashboard line), exit 2
    const s = await runMain(
      {
        FLEETSYNC_DB: join(fx.dir, 'fleet.duckdb'),
        FLEETSYNC_ACCOUNT: ACCOUNT,
        FLEET_TIMEZONE: ZONE,
        FLEETSYNC_PRICES: path,
        FLEETSYNC_ENV_FILE: '/dev/null',
        FLEETSYNC_PORT: '0',
      },
      'serve',
    );
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('neg.json:1: price_per_l must not be negative');
    expect(s.stdout).not.toContain('dashboard');
    const { openDatabase } = await import('../../src/store/db.ts');
    fx.db = await openDatabase(join(fx.dir, 'fleet.duckdb'));
    fx.con = await fx.db.connect();
    expect(await dump()).toEqual(before);
    const { existsSync } = await import('node:fs');
    expect(existsSync(out)).toBe(false);
  });
});
