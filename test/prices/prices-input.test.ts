/**
 * The prices file as users save it and as large as they keep it (issue 24 item 4), on the
 * hand-filled report fixture (toll gantry g-toll; vehicle 1 passes on 1 April local, vehicle 2,
 * heavy here, on 5 April): a UTF-8 BOM (Excel's "CSV UTF-8", Notepad) is read; a file with
 * hundreds of bad rows is refused with the count and the first 20; a file already stored is not
 * read again; many tariffs per gantry still charge each passage by its own day's tariff.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFleetsyncError } from '../../src/errors.ts';
import { loadPricesFile } from '../../src/prices/store.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport } from '../../src/reports/run.ts';
import { addDays } from '../../src/time.ts';
import { ACCOUNT, NOW, ZONE, openFixture, type FixtureDb } from '../helpers/report-fixture.ts';

let fx: FixtureDb;
beforeAll(async () => {
  fx = await openFixture();
});
afterAll(() => fx?.close());

const BOM = '\uFEFF';
const write = (name: string, text: string) => {
  const p = join(fx.dir, name);
  writeFileSync(p, text);
  return p;
};
const load = (path: string) => loadPricesFile(fx.con, ACCOUNT, { pricesFile: path }, NOW);
const charges = async () => {
  const scope = { account: ACCOUNT, zone: ZONE, nowMs: NOW };
  const def = requireReport('toll_charges');
  const rows = (await runReport(fx.con, def, scope, parseReportParams({ month: '2026-04' }, def, scope)))
    .rows;
  return rows.map((r) => [r.vehicle_id, r.local_date, r.charge, r.tariff_status]);
};
const GOOD = {
  defaults: { fuel_type: 'diesel', vehicle_class: 'light' },
  toll_tariffs: [{ geofence_id: 'g-toll', vehicle_class: 'light', valid_from: '2026-01-01', charge: 4 }],
  vehicles: [{ registration: 'CD456GP', vehicle_class: 'heavy' }],
};

describe('the prices file as users save it', () => {
  it('JSON and CSV with a UTF-8 BOM load like the same file without', async () => {
    expect(await load(write('bom.json', BOM + JSON.stringify(GOOD, null, 2)))).toBe('loaded');
    expect(await charges()).toEqual([
      [1, '2026-04-01', 4, 'tariff'],
      [2, '2026-04-05', null, 'no_tariff'],
    ]);
    const csv = [
      'record,fuel_type,vehicle_class,geofence_id,valid_from,vehicle,price',
      'default,diesel,light,,,,',
      'toll_tariff,,light,g-toll,2026-01-01,,5.5',
      'toll_tariff,,heavy,g-toll,2026-01-01,,9',
      'vehicle,,heavy,,,CD456GP,',
    ].join('\r\n');
    expect(await load(write('bom.csv', BOM + csv))).toBe('loaded');
    expect(await charges()).toEqual([
      [1, '2026-04-01', 5.5, 'tariff'],
      [2, '2026-04-05', 9, 'tariff'],
    ]);
  });

  it('a file with 300 bad rows: the count and the first 20 problems, nothing stored changes', async () => {
    const before = await charges();
    const rows = Array.from(
      { length: 300 },
      (_, i) => `toll_tariff,,light,g-toll,${addDays('2020-01-01', i)},,-1`,
    );
    const path = write(
      'bad-many.csv',
      [
        'record,fuel_type,vehicle_class,geofence_id,valid_from,vehicle,price',
        'default,diesel,light,,,,',
        ...rows,
      ].join('\n'),
    );
    let err: unknown;
    try {
      await load(path);
    } catch (e) {
      err = e;
    }
    expect(isFleetsyncError(err, 'E_CONFIG')).toBe(true);
    const lines = (err as Error).message.split('\n');
    expect(lines[0]).toBe(`FLEETSYNC_PRICES ${path}: 300 problems; nothing was changed; the first 20:`);
    expect(lines.slice(1, 21)).toEqual(
      Array.from({ length: 20 }, (_, i) => `  bad-many.csv:${i + 3}: charge must not be negative (got -1)`),
    );
    expect(lines.slice(21)).toEqual(['  … and 280 more']);
    expect((err as { details: { problems: unknown[]; count: number } }).details).toMatchObject({
      count: 300,
    });
    expect((err as { details: { problems: unknown[] } }).details.problems).toHaveLength(20);
    expect(await charges()).toEqual(before);
  });
});

describe('a large file is indexed once', () => {
  it('is not read again while its contents are what is stored; a changed file is', async () => {
    const path = write('once.json', JSON.stringify(GOOD));
    expect(await load(path)).toBe('loaded');
    expect(await load(path)).toBe('unchanged');
    expect(await charges()).toEqual([
      [1, '2026-04-01', 4, 'tariff'],
      [2, '2026-04-05', null, 'no_tariff'],
    ]);
    writeFileSync(
      path,
      JSON.stringify({ ...GOOD, toll_tariffs: [{ ...GOOD.toll_tariffs[0], charge: 4.5 }] }),
    );
    expect(await load(path)).toBe('loaded');
    expect((await charges())[0]).toEqual([1, '2026-04-01', 4.5, 'tariff']);
  });

  it('daily tariffs for two years: each passage pays its own day’s tariff; an old one still applies to a class with no later one', async () => {
    // light: one tariff a day from 2025-06-01 to 2026-12-31, charge = 100 + the day's index;
    // heavy: one tariff from 2020-01-01 (long before every passage), then one after April.
    const days = Array.from({ length: 579 }, (_, i) => addDays('2025-06-01', i));
    const csv = [
      'record,fuel_type,vehicle_class,geofence_id,valid_from,vehicle,price',
      'default,diesel,light,,,,',
      ...days.map((d, i) => `toll_tariff,,light,g-toll,${d},,${100 + i}`),
      'toll_tariff,,heavy,g-toll,2020-01-01,,7',
      'toll_tariff,,heavy,g-toll,2026-05-01,,70',
      'vehicle,,heavy,,,CD456GP,',
    ].join('\n');
    expect(await load(write('daily.csv', csv))).toBe('loaded');
    expect(await charges()).toEqual([
      [1, '2026-04-01', 100 + days.indexOf('2026-04-01'), 'tariff'],
      [2, '2026-04-05', 7, 'tariff'],
    ]);
  });
});
