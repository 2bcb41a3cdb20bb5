/**
 * How the service plan reaches SQL, as the prices file does (src/prices/store.ts): the file is
 * checked as a whole against the account's vehicles, then the account's plan (source, intervals,
 * and the services the file lists) is replaced in one transaction. A file with any problem is
 * refused with one message listing every problem (E_CONFIG, exit 2) before anything is written,
 * so what is stored stays the last good file's. Services recorded with `fleetsync service done`
 * are kept across loads. Without FLEETSYNC_SERVICE_PLAN the stored plan stays as it is.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { resolve } from 'node:path';
import type { Config } from '../config.ts';
import { FleetsyncError } from '../errors.ts';
import { describeProblems, plate } from '../prices/file.ts';
import { inTransaction } from '../store/db.ts';
import { execute, queryJs } from '../store/queries.ts';
import { appendRows } from '../store/write.ts';
import { MAX_LISTED_PROBLEMS, userFileSha } from '../text-file.ts';
import { isCalendarDay, localDate } from '../time.ts';
import {
  checkServicePlan,
  readServicePlanFile,
  resolveVehicle,
  type ServiceKnown,
  type ServicePlan,
} from './file.ts';

export const SERVICE_PLAN_ENV = 'FLEETSYNC_SERVICE_PLAN';

async function known(
  con: DuckDBConnection,
  account: string,
  zone: string,
  nowMs: number,
): Promise<ServiceKnown> {
  const veh = await queryJs(con, 'service/known_vehicles', { account });
  return {
    vehicles: veh.length
      ? new Map(veh.map((v) => [plate(String(v.registration)), Number(v.vehicle_id)]))
      : null,
    today: localDate(nowMs, zone),
  };
}

/** Reads and checks a plan file against the account's vehicles; throws E_CONFIG listing every problem. */
export async function readServicePlan(
  con: DuckDBConnection,
  account: string,
  path: string,
  zone: string,
  nowMs: number,
): Promise<ServicePlan> {
  const raw = readServicePlanFile(resolve(path));
  const { plan, problems } = checkServicePlan(raw, await known(con, account, zone, nowMs));
  if (!plan)
    throw new FleetsyncError('E_CONFIG', describeProblems(path, problems, SERVICE_PLAN_ENV), {
      details: { problems: problems.slice(0, MAX_LISTED_PROBLEMS), count: problems.length },
    });
  return plan;
}

/** Replaces the account's plan with `p`, whole or not at all (the `service done` records stay). */
export async function storeServicePlan(
  con: DuckDBConnection,
  account: string,
  p: ServicePlan,
  nowMs: number,
) {
  await inTransaction(con, async () => {
    for (const q of ['delete_source', 'delete_intervals', 'delete_file_services'])
      await execute(con, `service/${q}`, { account });
    await execute(con, 'service/insert_source', {
      account,
      path: p.file,
      sha256: p.sha256,
      loaded_ms: nowMs,
      warn_km: p.warnKm,
      warn_days: p.warnDays,
    });
    // Appended in bulk, as the prices are: a plan of every vehicle of a large fleet is one call.
    await appendRows(
      con,
      'service_intervals',
      p.intervals.map((i) => ({ account, ...i })),
    );
    await appendRows(
      con,
      'service_records',
      p.services.map((x) => ({
        account,
        vehicle_id: x.vehicle_id,
        service_day: new Date(`${x.date}T00:00:00Z`),
        odometer_km: x.odometer_km,
        source: 'file',
        recorded_at: nowMs,
      })),
    );
  });
}

/**
 * At start (serve, demo, export): when FLEETSYNC_SERVICE_PLAN names a file, check it and store it
 * (a bad file stops the command, exit 2, every problem listed); a file whose SHA-256 is the one
 * stored is not read again. Returns 'loaded', 'unchanged', or null without a file.
 */
export async function loadServicePlanFile(
  con: DuckDBConnection,
  account: string,
  config: Pick<Config, 'servicePlanFile'>,
  zone: string,
  nowMs: number,
): Promise<'loaded' | 'unchanged' | null> {
  const path = config.servicePlanFile?.trim();
  if (!path) return null;
  const sha = userFileSha(resolve(path));
  const stored = (await queryJs(con, 'service/stored_sha', { account }))[0]?.sha256;
  if (sha !== null && stored === sha) return 'unchanged';
  await storeServicePlan(con, account, await readServicePlan(con, account, path, zone, nowMs), nowMs);
  return 'loaded';
}

export interface ServiceDone {
  vehicle: string;
  date: string;
  odometer: string;
}

/**
 * `fleetsync service done`: one service of one vehicle (by vehicle_id or registration) on a local
 * day with its odometer reading (km). Refused with every problem named (E_USAGE) when the vehicle
 * is unknown, the day is not a day or after today, the reading is not a number of km or is below
 * an earlier service's; nothing is written then. Returns the vehicle_id recorded.
 */
export async function recordServiceDone(
  con: DuckDBConnection,
  account: string,
  given: ServiceDone,
  zone: string,
  nowMs: number,
): Promise<number> {
  const k = await known(con, account, zone, nowMs);
  const problems: string[] = [];
  const v = given.vehicle.trim();
  const got = resolveVehicle(/^\d+$/.test(v) ? Number(v) : v, k);
  if ('problem' in got) problems.push(`--vehicle: ${got.problem}`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(given.date) || !isCalendarDay(given.date))
    problems.push(`--date ${JSON.stringify(given.date)} must be a day YYYY-MM-DD`);
  else if (given.date > k.today) problems.push(`--date ${given.date} is after today (${k.today})`);
  const km = Number(given.odometer.trim());
  if (given.odometer.trim() === '' || !Number.isFinite(km) || km < 0)
    problems.push(
      `--odometer ${JSON.stringify(given.odometer)} must be the reading in km (a number, not negative)`,
    );
  if (!problems.length && 'id' in got) {
    const earlier = (
      await queryJs(con, 'service/earlier_reading', {
        account,
        vehicle_id: got.id,
        service_day: given.date,
        odometer_km: km,
      })
    )[0];
    if (earlier)
      problems.push(
        `--odometer ${km} is below the ${Number(earlier.odometer_km)} km recorded at the earlier service on ${String(earlier.service_day)}`,
      );
  }
  if (problems.length || !('id' in got))
    throw new FleetsyncError(
      'E_USAGE',
      `service not recorded; nothing was changed:\n  ${problems.join('\n  ')}`,
    );
  await execute(con, 'service/record_service', {
    account,
    vehicle_id: got.id,
    service_day: given.date,
    odometer_km: km,
    source: 'cli',
    recorded_ms: nowMs,
  });
  return got.id;
}
