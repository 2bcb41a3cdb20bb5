/**
 * Issue 25, item 5: `fleetsync export` says what its filters found. An unknown `--department` or
 * `--vehicle`, or a pair that matches no vehicle, is refused with exit 2 naming it and no file is
 * written (a nightly script with a typo used to get an empty file and exit 0); `--vehicle` takes a
 * registration as people type it, and an ambiguous one lists the ids. On the hand-filled database
 * (vehicles 1 "ab 123 gp" Sales, 2 "cd 456 gp" Ops, 3 "=cmd()" @x), plus vehicles 4 and 5 that
 * share the registration "XY 9" here.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli.ts';
import { ACCOUNT, NOW, ZONE, openFixture, parseCsv } from '../helpers/report-fixture.ts';

let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  const fx = await openFixture();
  dir = fx.dir;
  for (const [id, reg] of [
    [4, 'XY 9'],
    [5, 'xy-9'],
  ] as const)
    await fx.con.run(
      `INSERT INTO vehicles (account, vehicle_id, registration, description, fuel_canbus_consumed,
         fuel_canbus_level, fuel_analog_level, electric_battery, electric_charging, synced_at)
       VALUES ($1, $2, $3, 'Ops', false, false, false, false, false, to_timestamp($4 / 1000.0))`,
      [ACCOUNT, id, reg, NOW],
    );
  // the CLI opens the file itself
  fx.con.closeSync();
  fx.db.close();
  env = { FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: ZONE, FLEETSYNC_DB: join(dir, 'fleet.duckdb') };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const range = ['--from', '2026-03-01', '--to', '2026-04-30'];

/** Exports mileage with `args`; the exit code, stderr and the CSV rows (null: no file). */
async function exportMileage(name: string, ...args: string[]) {
  const out = join(dir, `${name}.csv`);
  const r = await runMain(env, 'export', 'mileage', ...range, ...args, '--out', out);
  const rows = existsSync(out) ? parseCsv(readFileSync(out, 'utf8').slice(1)) : null;
  return { ...r, rows };
}

describe('fleetsync export: --vehicle and --department say what they found', () => {
  it('an unknown department: exit 2 naming it and the known ones, no file', async () => {
    const r = await exportMileage('nope', '--department', 'Nope');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '--department "Nope": no vehicle of account acme is in that department; known departments: @x, Ops, Sales',
    );
    expect(r.rows).toBeNull();
  });

  it('an unknown vehicle id or registration: exit 2 naming it, no file', async () => {
    for (const v of ['9999', 'ZZ 000']) {
      const r = await exportMileage(`v-${v}`, '--vehicle', v);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--vehicle "${v}": no vehicle of account acme has that id or registration`);
      expect(r.stderr).toContain('ab 123 gp (id 1)');
      expect(r.rows).toBeNull();
    }
  });

  it('a --vehicle that is neither an id nor a registration is refused before the database is read', async () => {
    const r = await exportMileage('quote', '--vehicle', "1' OR 1=1");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--vehicle: must be a vehicle id');
    expect(r.rows).toBeNull();
  });

  it('a registration as typed selects the same rows as its id', async () => {
    const byId = await exportMileage('by-id', '--vehicle', '1');
    const byPlate = await exportMileage('by-plate', '--vehicle', 'AB 123 GP');
    expect(byPlate.code).toBe(0);
    expect(byPlate.stderr).toBe('');
    const [header, ...rows] = byPlate.rows!;
    const vid = header!.indexOf('vehicle_id');
    // March and April of vehicle 1, nothing else
    expect(rows.map((r) => r[vid])).toEqual(['1', '1']);
    expect(byPlate.rows).toEqual(byId.rows);
  });

  it('an ambiguous registration lists the ids; the id then works', async () => {
    const r = await exportMileage('ambiguous', '--vehicle', 'xy 9');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '--vehicle "xy 9" is the registration of 2 vehicles: XY 9 (id 4), xy-9 (id 5); give the id',
    );
    expect(r.rows).toBeNull();
    expect((await exportMileage('by-id-5', '--vehicle', '5')).code).toBe(0);
  });

  it('a known vehicle and a known department that match no vehicle together: exit 2', async () => {
    const r = await exportMileage('pair', '--vehicle', '1', '--department', 'Ops');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'no vehicle matches --vehicle "1" with --department "Ops": ab 123 gp (id 1) is in "Sales"',
    );
    expect(r.rows).toBeNull();
    const ok = await exportMileage('pair-ok', '--vehicle', '2', '--department', 'Ops');
    expect(ok.code).toBe(0);
    expect(ok.rows!.length - 1).toBe(2);
  });
});
