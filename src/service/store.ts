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
import { prepareModelConnection } from '../store/models.ts';
import { execute, queryJs } from '../store/queries.ts';
import { appendRows } from '../store/write.ts';
import { MAX_LISTED_PROBLEMS, userFileSha } from '../text-file.ts';
import { DAY_MS, formatLocalMinute, isCalendarDay, localDate, localDayBounds } from '../time.ts';
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
  /** Record a reading the synced odometer or an earlier service contradicts (`--force`). */
  force?: boolean;
}

/** What `service done` recorded, and what the person recording it must know about it. */
export interface ServiceRecorded {
  vehicleId: number;
  /** Each a sentence: a reading recorded against the known ones (force), no plan to count it. */
  notes: string[];
}

/**
 * How far a reading may be from the synced odometer: the instrument and the tracker differ a
 * little (a calibration, a reading taken before or after the day's driving); a digit too many or
 * too few, or another vehicle's reading, is far more.
 */
export const ODOMETER_SLACK = { km: 500, share: 0.05 } as const;
/** More than any vehicle drives in a day: the bound above a reading when none is synced after the day. */
export const MAX_KM_PER_DAY = 2000;
const slack = (km: number) => Math.max(ODOMETER_SLACK.km, ODOMETER_SLACK.share * km);
const kmText = (km: number) => `${Math.round(km).toLocaleString('en-US')} km`;

/**
 * The reading `km` on local `day` against the vehicle's synced odometer around it (the nearest
 * reading before the day and after it, queries/service/odometer_around.sql; one across a reset or
 * a tracker swap says nothing): a problem for each side it is far from. No reading, no problem.
 */
async function odometerProblems(
  con: DuckDBConnection,
  account: string,
  vehicleId: number,
  day: string,
  km: number,
  zone: string,
): Promise<string[]> {
  const { startMs, endMs } = localDayBounds(day, zone);
  await prepareModelConnection(con, ['service/odometer_around']);
  const rows = await queryJs(con, 'service/odometer_around', {
    account,
    vehicle_id: vehicleId,
    day_start_ms: startMs,
    day_end_ms: endMs,
  });
  const side = (name: string) => {
    const r = rows.find((x) => x.side === name);
    return r && r.crossed !== true ? { km: Number(r.km), atMs: Number(r.at_ms) } : null;
  };
  const read = (r: { km: number; atMs: number }) =>
    `the ${kmText(r.km)} its synced odometer read at ${formatLocalMinute(r.atMs, zone)}`;
  const before = side('before');
  const after = side('after');
  const out: string[] = [];
  if (before && km < before.km - slack(before.km))
    out.push(`--odometer ${km} is far below ${read(before)}, before ${day}`);
  if (after && km > after.km + slack(after.km))
    out.push(`--odometer ${km} is far above ${read(after)}, after ${day}`);
  else if (!after && before) {
    const days = (endMs - before.atMs) / DAY_MS;
    if (km > before.km + MAX_KM_PER_DAY * days + slack(before.km))
      out.push(
        `--odometer ${km} is far above what the vehicle can have reached by the end of ${day}: ${read(before)}, ` +
          `and no vehicle drives more than ${kmText(MAX_KM_PER_DAY)} a day`,
      );
  }
  return out;
}

const FORCE_HINT =
  `(a reading more than ${kmText(ODOMETER_SLACK.km)} or ${ODOMETER_SLACK.share * 100}% off is refused). ` +
  'If the reading is right (an odometer replaced, our readings wrong), record it anyway: ' +
  '`service done --force`, `"force": true` in POST /api/service/done, "Record anyway" on the Service page';

/**
 * `fleetsync service done`: one service of one vehicle (by vehicle_id or registration) on a local
 * day with its odometer reading (km). Refused with every problem named (E_USAGE) when the vehicle
 * is unknown, the day is not a day or after today, the reading is not a number of km; and, unless
 * `force`, when the reading is below an earlier service's or far from the vehicle's synced
 * odometer around that day (`details.forcible` when force would record it). Nothing is written
 * then. Returns the vehicle recorded and notes: what force recorded over, and that no service plan
 * is loaded (nothing counts from the service until one is; recorded all the same).
 */
export async function recordServiceDone(
  con: DuckDBConnection,
  account: string,
  given: ServiceDone,
  zone: string,
  nowMs: number,
): Promise<ServiceRecorded> {
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
  // Against what is known of the vehicle's odometer: refused unless forced, and said when forced.
  const against: string[] = [];
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
      against.push(
        `--odometer ${km} is below the ${Number(earlier.odometer_km)} km recorded at the earlier service on ${String(earlier.service_day)}`,
      );
    against.push(...(await odometerProblems(con, account, got.id, given.date, km, zone)));
  }
  if (problems.length || !('id' in got) || (against.length && !given.force))
    throw new FleetsyncError(
      'E_USAGE',
      `service not recorded; nothing was changed:\n  ${[...problems, ...against].join('\n  ')}` +
        (against.length ? `\n${FORCE_HINT}` : ''),
      { details: { forcible: problems.length === 0 } },
    );
  await execute(con, 'service/record_service', {
    account,
    vehicle_id: got.id,
    service_day: given.date,
    odometer_km: km,
    source: 'cli',
    recorded_ms: nowMs,
  });
  const notes = against.map(
    (a) => `recorded with force although ${a.replace(/^--odometer /, 'the reading ')}`,
  );
  // Recorded all the same: a plan loaded later counts from it.
  if (!(await queryJs(con, 'service/stored_sha', { account })).length)
    notes.push(
      `no service plan is loaded (${SERVICE_PLAN_ENV}): nothing counts from this service, and service_due stays unknown, until one is`,
    );
  return { vehicleId: got.id, notes };
}
