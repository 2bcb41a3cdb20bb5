/**
 * `fleetsync service done --vehicle V --date D --odometer KM [--force]`: records a service done (the
 * vehicle by id or registration, its local day, the odometer reading in km) and prints the
 * vehicle's line of the `service_due` report after it. A reading far from the vehicle's synced
 * odometer around that day, or below an earlier service's, is refused naming the known reading;
 * `--force` records it anyway and says what it recorded over. FLEETSYNC_SERVICE_PLAN, when set, is
 * checked and loaded first (as `serve` and `export` do). A bad value is refused with every
 * problem named (exit 2) and nothing recorded (src/service/store.ts).
 */
import { loadConfig, type Config } from '../config.ts';
import { FleetsyncError, isFleetsyncError } from '../errors.ts';
import { parseReportParams } from '../reports/params.ts';
import { requireReport, resolveZone, runReport } from '../reports/run.ts';
import { loadServicePlanFile, recordServiceDone, type ServiceDone } from '../service/store.ts';
import { askRunningServer, serverUrl } from '../status/remote.ts';
import { resolveAccount } from '../store/accounts.ts';
import { openDatabase } from '../store/db.ts';
import type { Command } from './command.ts';

type Row = Record<string, unknown> | null | undefined;

/** What `service done` prints: the service recorded, what to know about it, the vehicle's status after it. */
function describe(given: ServiceDone, id: number, row: Row, notes: readonly string[]): string {
  return (
    `recorded: vehicle ${String(row?.registration ?? id)} (${id}) serviced on ${given.date} at ${given.odometer} km\n` +
    notes.map((n) => `note: ${n}\n`).join('') +
    `service due: ${String(row?.status ?? 'unknown')}` +
    (row?.reason ? ` (${String(row.reason)})` : '') +
    (row?.due_day ? `; next due ${String(row.due_day)}` : '')
  );
}

/** The running server that holds this database records it (askRunningServer checks it is that one). */
async function recordOnServer(
  config: Config,
  given: ServiceDone,
  locked: FleetsyncError,
): Promise<{ vehicle_id: number; service_due: Row; notes: string[] }> {
  await askRunningServer(config, 1, locked);
  const res = await fetch(`${serverUrl(config.host, config.port)}/api/service/done`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-fleetsync-request': '1',
      ...(config.token ? { authorization: `Bearer ${config.token}` } : {}),
    },
    body: JSON.stringify(given),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await res.json().catch(() => ({}))) as {
    message?: string;
    vehicle_id?: number;
    service_due?: Row;
    notes?: string[];
  };
  if (res.status === 400) throw new FleetsyncError('E_USAGE', body.message ?? 'refused by the server');
  if (!res.ok || typeof body.vehicle_id !== 'number')
    throw new FleetsyncError(
      'E_HTTP',
      `the running server did not record it: HTTP ${res.status} ${body.message ?? ''}`,
    );
  return { vehicle_id: body.vehicle_id, service_due: body.service_due, notes: body.notes ?? [] };
}

const USAGE = 'fleetsync service done --vehicle ID|REGISTRATION --date YYYY-MM-DD --odometer KM [--force]';

export const serviceCommand: Command = {
  summary: 'Record a service done; the service_due report counts the next one from it.',
  usage: USAGE,
  options: {
    vehicle: { type: 'string' },
    date: { type: 'string' },
    odometer: { type: 'string' },
    force: { type: 'boolean' },
  },
  async run({ values, positionals }, ctx) {
    if (positionals[0] !== 'done' || positionals.length !== 1)
      throw new FleetsyncError('E_USAGE', `the only service command is \`service done\`\nusage: ${USAGE}`);
    const missing = ['vehicle', 'date', 'odometer'].filter((k) => typeof values[k] !== 'string');
    if (missing.length)
      throw new FleetsyncError('E_USAGE', `give ${missing.map((m) => `--${m}`).join(', ')}\nusage: ${USAGE}`);
    const config = loadConfig(ctx.env);
    const given = {
      vehicle: String(values.vehicle),
      date: String(values.date),
      odometer: String(values.odometer),
      ...(values.force === true ? { force: true } : {}),
    };
    let db;
    try {
      db = await openDatabase(config.dbPath, { mustExist: true });
    } catch (e) {
      if (!isFleetsyncError(e, 'E_DB_LOCKED')) throw e;
      // `serve` holds the file: it records the service (POST /api/service/done), if it is the one.
      const answer = await recordOnServer(config, given, e);
      ctx.stdout(
        describe(given, answer.vehicle_id, answer.service_due, answer.notes) + ` (by the running server)\n`,
      );
      return;
    }
    try {
      const con = await db.connect();
      try {
        const account = await resolveAccount(con, config, { mustExist: true });
        const zone = await resolveZone(con, account, config.timezone);
        await loadServicePlanFile(con, account, config, zone, ctx.now());
        const { vehicleId: id, notes } = await recordServiceDone(con, account, given, zone, ctx.now());
        const def = requireReport('service_due');
        const scope = { account, zone, nowMs: ctx.now() };
        const [row] = (
          await runReport(con, def, scope, parseReportParams({ vehicle: String(id) }, def, scope))
        ).rows;
        ctx.stdout(describe(given, id, row, notes) + '\n');
      } finally {
        con.closeSync();
      }
    } finally {
      db.close();
    }
  },
};
