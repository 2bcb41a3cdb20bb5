/**
 * `fleetsync service done` through the command line: records the service (the due list counts
 * from it), refuses bad values with exit 2 naming each, and refuses a bad FLEETSYNC_SERVICE_PLAN
 * before recording anything; a reading far from the synced odometer is refused naming the known
 * reading, and `--force` records it with a note.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { runMain } from '../helpers/cli.ts';
import { queryDb } from '../helpers/synced.ts';
import { DONE_BOTH, DONE_BOTH_LINE, openServiceFixture } from '../service/fixture.ts';

let dir: string;
let env: Record<string, string>;
beforeEach(async () => {
  const fx = await openServiceFixture();
  fx.con.closeSync();
  fx.db.close();
  dir = fx.dir;
  env = { FLEETSYNC_DB: join(dir, 'fleet.duckdb') };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const records = async () => {
  const db = await openDatabase(env.FLEETSYNC_DB!);
  try {
    return await queryDb(
      db,
      "SELECT vehicle_id, service_day::VARCHAR AS day, odometer_km, source FROM service_records WHERE source = 'cli'",
    );
  } finally {
    db.close();
  }
};

describe('fleetsync service done', () => {
  it('records the service and prints the vehicle’s line of the due list', async () => {
    const out = await runMain(env, ...DONE_BOTH);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(DONE_BOTH_LINE);
    expect(out.stdout).toMatch(/service due: (ok|due|overdue|unknown)/);
    expect(await records()).toEqual([
      { vehicle_id: 3n, day: '2026-07-18', odometer_km: 101300, source: 'cli' },
    ]);
  });

  it('refuses bad values with exit 2, naming each, and records nothing', async () => {
    const out = await runMain(env, 'service', 'done', '--vehicle', '99', '--date', 'soon', '--odometer', 'x');
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('unknown vehicle 99');
    expect(out.stderr).toContain('--date "soon" must be a day YYYY-MM-DD');
    expect(out.stderr).toContain('--odometer "x" must be the reading in km');
    expect((await runMain(env, 'service', 'done', '--vehicle', '1')).stderr).toContain(
      'give --date, --odometer',
    );
    expect((await runMain(env, 'service', 'undo')).code).toBe(2);
    const plan = join(dir, 'broken.json');
    writeFileSync(plan, '{ "intervals": [ { "every_km": 0 } ] }');
    const bad = await runMain(
      { ...env, FLEETSYNC_SERVICE_PLAN: plan },
      'service',
      'done',
      '--vehicle',
      '1',
      '--date',
      '2026-07-01',
      '--odometer',
      '60000',
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('broken.json:1: every_km must be more than 0');
    expect(await records()).toEqual([]);
  });

  it('without a service plan loaded: recorded, and says nothing counts from it', async () => {
    const db = await openDatabase(env.FLEETSYNC_DB!);
    try {
      await queryDb(db, 'DELETE FROM service_plan_source');
    } finally {
      db.close();
    }
    const out = await runMain(env, ...DONE_BOTH);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(
      `${DONE_BOTH_LINE}\nnote: no service plan is loaded (FLEETSYNC_SERVICE_PLAN): nothing counts from this service, and service_due stays unknown, until one is\n`,
    );
    expect(out.stdout).toContain('service due: unknown (no service plan loaded (FLEETSYNC_SERVICE_PLAN))');
    expect(await records()).toEqual([
      { vehicle_id: 3n, day: '2026-07-18', odometer_km: 101300, source: 'cli' },
    ]);
  });

  it('refuses a reading far from the synced odometer naming the known one; --force records it and says so', async () => {
    // KM's odometer read 53,000 km on 1 July (test/service/fixture.ts)
    const typo = ['service', 'done', '--vehicle', 'KM', '--date', '2026-07-05', '--odometer', '12345'];
    const refused = await runMain(env, ...typo);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      '--odometer 12345 is far below the 53,000 km its synced odometer read at 2026-07-01 00:00, before 2026-07-05',
    );
    expect(refused.stderr).toContain('`service done --force`');
    expect(await records()).toEqual([]);
    const forced = await runMain(env, ...typo, '--force');
    expect(forced.stderr).toBe('');
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('recorded: vehicle KM (1) serviced on 2026-07-05 at 12345 km\n');
    expect(forced.stdout).toContain(
      'note: recorded with force although the reading 12345 is far below the 53,000 km its synced odometer read at 2026-07-01 00:00',
    );
    expect(await records()).toEqual([
      { vehicle_id: 1n, day: '2026-07-05', odometer_km: 12345, source: 'cli' },
    ]);
  });
});
