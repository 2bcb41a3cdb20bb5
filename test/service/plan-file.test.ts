/**
 * The service plan file is checked whole: a bad file (JSON or CSV) is refused with every problem
 * named by its line, and nothing stored changes (the due list stays the last good file's); a CSV
 * file says what the JSON file says.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadServicePlanFile } from '../../src/service/store.ts';
import { reportOn } from '../helpers/synced.ts';
import { ACCOUNT, NOW, ZONE, openServiceFixture, type ServiceFixture } from './fixture.ts';

let fx: ServiceFixture;
beforeEach(async () => {
  fx = await openServiceFixture();
});
afterEach(() => fx.close());

const dueList = () => reportOn(fx.db, 'service_due', {}, { account: ACCOUNT, zone: ZONE, nowMs: NOW });
const load = (name: string, text: string) => {
  const path = join(fx.dir, name);
  writeFileSync(path, text);
  return loadServicePlanFile(fx.con, ACCOUNT, { servicePlanFile: path }, ZONE, NOW);
};

describe('the service plan file', () => {
  it('refuses a bad JSON file naming every problem with its line; nothing stored changes', async () => {
    const before = await dueList();
    const text = [
      '{', //                                                            1
      '  "warning": { "km": -1, "days": 30 },', //                        2
      '  "intervals": [', //                                             3
      '    { "every_km": 20000 },', //                                   4
      '    { "every_months": 6 },', //                                   5
      '    { "vehicle": "KM" },', //                                     6
      '    { "vehicle": "GHOST", "every_km": 1000 },', //                7
      '    { "vehicle": 1, "vehicle_class": "heavy", "every_km": 5 }', // 8
      '  ],', //                                                         9
      '  "services": [', //                                             10
      '    { "vehicle": 1, "date": "2026-07-21", "odometer_km": 10 },', // 11
      '    { "vehicle": 2, "date": "2026-02-30", "odometer_km": 10 },', // 12
      '    { "vehicle": 3, "date": "2026-06-01", "odometer_km": 900 },', // 13
      '    { "vehicle": 3, "date": "2026-07-01", "odometer_km": 100 },', // 14
      '    { "vehicle": 4, "date": "2026-06-01" }', //                  15
      '  ],', //                                                        16
      '  "colour": "red"', //                                           17
      '}',
    ].join('\n');
    const err = await load('bad-plan.json', text).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'E_CONFIG' });
    const msg = (err as Error).message;
    expect(msg).toMatch(/^FLEETSYNC_SERVICE_PLAN .*bad-plan\.json: 10 problems; nothing was changed/);
    for (const line of [
      'bad-plan.json:2: km must not be negative (got -1)',
      'bad-plan.json:5: a second interval for the whole fleet (the first is on line 4)',
      'bad-plan.json:6: gives neither every_km nor every_months',
      'bad-plan.json:7: unknown vehicle "GHOST": no such registration in the account',
      'bad-plan.json:8: names both a vehicle and a vehicle_class',
      'bad-plan.json:11: date 2026-07-21 is after today (2026-07-20)',
      'bad-plan.json:12: date must be a day YYYY-MM-DD (got "2026-02-30")',
      'bad-plan.json:14: odometer_km 100 is below the 900 of the earlier service on 2026-06-01 (line 13)',
      'bad-plan.json:15: odometer_km is missing',
      'bad-plan.json:17: unknown key "colour" (known: warning, intervals, services)',
    ])
      expect(msg).toContain(line);
    expect(await dueList()).toEqual(before);
  });

  it('refuses a bad CSV file the same way, with its lines', async () => {
    const before = await dueList();
    const csv = [
      'record,vehicle,vehicle_class,every_km,every_months,date,odometer_km',
      'interval,,,abc,,,',
      'service,KM,,,,2026-06-01,',
      'servce,KM,,,,2026-06-01,10',
    ].join('\n');
    const err = await load('bad-plan.csv', csv).catch((e: unknown) => e);
    const msg = (err as Error).message;
    expect(msg).toContain('bad-plan.csv:2: every_km must be a number of km (got "abc")');
    expect(msg).toContain('bad-plan.csv:3: odometer_km is missing');
    expect(msg).toContain('bad-plan.csv:4: record "servce" is not one of interval, service, warning');
    expect(await dueList()).toEqual(before);
  });

  it('reads a CSV plan as the same plan as the JSON one', async () => {
    const before = await dueList();
    const csv = [
      'record,vehicle,vehicle_class,every_km,every_months,date,odometer_km,warn_km,warn_days',
      'warning,,,,,,,1000,30',
      'interval,,,20000,12,,,,',
      'interval,KM,,15000,,,,,',
      'interval,2,,,6,,,,',
      'service,KM,,,,2026-06-01,50000,,',
      'service,MONTHS,,,,2026-01-25,20000,,',
      'service,BOTH,,,,2026-06-10,80000,,',
      'service,RESET,,,,2026-06-01,10000,,',
      'service,NEW,,,,2026-07-10,0,,',
    ].join('\r\n');
    expect(await load('plan.csv', csv)).toBe('loaded');
    expect(await dueList()).toEqual(before);
    // the same contents again: not read again
    expect(await load('plan.csv', csv)).toBe('unchanged');
  });
});
