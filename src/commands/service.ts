/**
 * `fleetsync service done --vehicle V --date D --odometer KM`: records a service done (the
 * vehicle by id or registration, its local day, the odometer reading in km) and prints the
 * vehicle's line of the `service_due` report after it. FLEETSYNC_SERVICE_PLAN, when set, is
 * checked and loaded first (as `serve` and `export` do). A bad value is refused with every
 * problem named (exit 2) and nothing recorded (src/service/store.ts).
 */
import { loadConfig } from '../config.ts';
import { FleetsyncError } from '../errors.ts';
import { parseReportParams } from '../reports/params.ts';
import { requireReport, resolveZone, runReport } from '../reports/run.ts';
import { loadServicePlanFile, recordServiceDone } from '../service/store.ts';
import { resolveAccount } from '../store/accounts.ts';
import { openDatabase } from '../store/db.ts';
import type { Command } from './command.ts';

const USAGE = 'fleetsync service done --vehicle ID|REGISTRATION --date YYYY-MM-DD --odometer KM';

export const serviceCommand: Command = {
  summary: 'Record a service done; the service_due report counts the next one from it.',
  usage: USAGE,
  options: { vehicle: { type: 'string' }, date: { type: 'string' }, odometer: { type: 'string' } },
  async run({ values, positionals }, ctx) {
    if (positionals[0] !== 'done' || positionals.length !== 1)
      throw new FleetsyncError('E_USAGE', `the only service command is \`service done\`\nusage: ${USAGE}`);
    const missing = ['vehicle', 'date', 'odometer'].filter((k) => typeof values[k] !== 'string');
    if (missing.length)
      throw new FleetsyncError('E_USAGE', `give ${missing.map((m) => `--${m}`).join(', ')}\nusage: ${USAGE}`);
    const config = loadConfig(ctx.env);
    const db = await openDatabase(config.dbPath, { mustExist: true });
    try {
      const con = await db.connect();
      try {
        const account = await resolveAccount(con, config, { mustExist: true });
        const zone = await resolveZone(con, account, config.timezone);
        await loadServicePlanFile(con, account, config, zone, ctx.now());
        const id = await recordServiceDone(
          con,
          account,
          { vehicle: String(values.vehicle), date: String(values.date), odometer: String(values.odometer) },
          zone,
          ctx.now(),
        );
        const def = requireReport('service_due');
        const scope = { account, zone, nowMs: ctx.now() };
        const [row] = (
          await runReport(con, def, scope, parseReportParams({ vehicle: String(id) }, def, scope))
        ).rows;
        ctx.stdout(
          `recorded: vehicle ${String(row?.registration ?? id)} (${id}) serviced on ${String(values.date)} at ${String(values.odometer)} km\n` +
            `service due: ${String(row?.status ?? 'unknown')}` +
            (row?.reason ? ` (${String(row.reason)})` : '') +
            (row?.due_day ? `; next due ${String(row.due_day)}` : '') +
            '\n',
        );
      } finally {
        con.closeSync();
      }
    } finally {
      db.close();
    }
  },
};
