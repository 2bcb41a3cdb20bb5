/**
 * `fleetsync export <report> [--from D] [--to D] [--month YYYY-MM] [--vehicle ID|REGISTRATION]
 * [--department NAME] [--format csv|xlsx|parquet|arrow] [--headers machine|human] [--out FILE]`: writes one report (atomic) and
 * its `.manifest.json`, then prints where it wrote and how many rows.
 */
import { resolve } from 'node:path';
import { resolveAccount } from '../store/accounts.ts';
import { loadConfig } from '../config.ts';
import { FleetsyncError, isFleetsyncError } from '../errors.ts';
import {
  EXPORT_FORMATS,
  HEADER_STYLES,
  exportReport,
  type ExportFormat,
  type HeaderStyle,
} from '../reports/export.ts';
import { parseReportParams, rangeNote } from '../reports/params.ts';
import { resolveSelection } from '../reports/selection.ts';
import { REPORT_NAMES, getReport } from '../reports/registry.ts';
import { configuredScope, resolveZone } from '../reports/run.ts';
import { loadPricesFile } from '../prices/store.ts';
import { loadServicePlanFile } from '../service/store.ts';
import { openDatabase } from '../store/db.ts';
import type { Command } from './command.ts';

/** What `--vehicle` takes as a registration. */
const REGISTRATION = /^[\p{L}\p{N}][\p{L}\p{N} .-]{0,31}$/u;

const usage =
  'fleetsync export <report> [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--month YYYY-MM] [--vehicle ID|REGISTRATION] ' +
  '[--department NAME] [--format csv|xlsx|parquet|arrow] [--headers machine|human] [--out FILE]' +
  '   (trend: --grain day|week|month, default day; top_vehicles, runs: --limit N rows, default 10, 100)';

export const exportCommand: Command = {
  summary: `Writes a report as CSV (default), XLSX, Parquet or Arrow. Reports: ${REPORT_NAMES.join(', ')}.`,
  usage,
  options: {
    from: { type: 'string' },
    to: { type: 'string' },
    month: { type: 'string' },
    vehicle: { type: 'string' },
    department: { type: 'string' },
    grain: { type: 'string' },
    limit: { type: 'string' },
    format: { type: 'string' },
    headers: { type: 'string' },
    out: { type: 'string' },
  },
  async run({ values, positionals }, ctx) {
    const [name, ...extra] = positionals;
    if (!name)
      throw new FleetsyncError('E_USAGE', `name a report: ${REPORT_NAMES.join(', ')}\nusage: ${usage}`);
    if (extra.length) throw new FleetsyncError('E_USAGE', `unexpected argument ${JSON.stringify(extra[0])}`);
    const def = getReport(name);
    if (!def)
      throw new FleetsyncError(
        'E_USAGE',
        `unknown report ${JSON.stringify(name)}; valid reports: ${REPORT_NAMES.join(', ')}`,
      );
    const format = (values.format ?? 'csv') as string;
    if (!(EXPORT_FORMATS as readonly string[]).includes(format))
      throw new FleetsyncError(
        'E_USAGE',
        `--format must be one of ${EXPORT_FORMATS.join(', ')} (got ${JSON.stringify(format)})`,
      );
    const headers = (values.headers ?? 'machine') as string;
    if (!(HEADER_STYLES as readonly string[]).includes(headers))
      throw new FleetsyncError(
        'E_USAGE',
        `--headers must be one of ${HEADER_STYLES.join(', ')} (got ${JSON.stringify(headers)})`,
      );
    if (headers === 'human' && format !== 'csv')
      throw new FleetsyncError(
        'E_USAGE',
        `--headers human is for --format csv (xlsx always has human headers)`,
      );
    const config = loadConfig(ctx.env);
    const now = ctx.now;
    const raw: Record<string, unknown> = {};
    for (const k of ['from', 'to', 'month', 'vehicle', 'department', 'grain', 'limit'])
      if (typeof values[k] === 'string') raw[k] = values[k];
    // a registration ("AYY 002": letters, digits, spaces, dots, dashes) is resolved to its id
    // against the database, below; anything else is left to the parameter check (exit 2 before
    // the database is opened)
    const vehicleText = typeof raw.vehicle === 'string' ? raw.vehicle : undefined;
    if (vehicleText !== undefined && !/^\d+$/.test(vehicleText) && REGISTRATION.test(vehicleText))
      delete raw.vehicle;
    const parse = (zone: string, future = true) => {
      try {
        return parseReportParams(raw, def, { zone, nowMs: now(), future });
      } catch (e) {
        if (isFleetsyncError(e, 'E_BAD_REQUEST'))
          throw new FleetsyncError('E_USAGE', e.message.replace(/(^|; )(\w+):/g, '$1--$2:'), { cause: e });
        throw e;
      }
    };
    // Bad arguments are refused before the database is opened. Whether a day is still to come
    // depends on the account's zone, recorded in the file: that check follows, in that zone.
    parse(config.timezone, false);
    const db = await openDatabase(config.dbPath, { mustExist: true });
    try {
      const con = await db.connect();
      // the export's stored-order check and manifest queries run on it beside the COPY (ExportOptions.side)
      const side = await db.connect();
      try {
        const account = await resolveAccount(con, config, { mustExist: true });
        await loadPricesFile(con, account, config, now());
        const zone = await resolveZone(con, account, config.timezone);
        await loadServicePlanFile(con, account, config, zone, now());
        const scope = configuredScope(account, zone, now(), config);
        Object.assign(
          raw,
          await resolveSelection(con, scope, {
            ...(vehicleText !== undefined ? { vehicle: vehicleText } : {}),
            ...(typeof raw.department === 'string' ? { department: raw.department } : {}),
          }),
        );
        const params = parse(zone);
        const ext = format === 'arrow' ? 'arrow' : format;
        const out = resolve(
          typeof values.out === 'string'
            ? values.out
            : `${def.name}_${params.fromDay}_${params.toDay}.${ext}`,
        );
        const res = await exportReport(con, def, scope, params, format as ExportFormat, out, {
          headers: headers as HeaderStyle,
          side,
          ownsInstance: true, // nothing else opens this process's database while the command runs
        });
        const note = rangeNote(params, scope, res.meta.complete_through_text);
        ctx.stdout(
          `wrote ${res.rows} ${res.rows === 1 ? 'row' : 'rows'} of ${def.name} (${params.fromDay} to ${params.toDay}, ${zone}; ${res.meta.complete_through_text}) to ${out}\n` +
            (note ? `note: ${note}\n` : ''),
        );
      } finally {
        side.closeSync();
        con.closeSync();
      }
    } finally {
      db.close();
    }
  },
};
