/**
 * What `--vehicle` and `--department` select, checked against the account's known vehicles (the
 * `vehicles` report) before anything is written: a vehicle is an id or a registration (spaces,
 * dashes and case ignored: "AYY 002" = "ayy-002"); an unknown vehicle or department, an ambiguous
 * registration, or a pair that matches no vehicle is E_USAGE naming it (exit 2), never a 0-row file.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { FleetsyncError } from '../errors.ts';
import { prepareModelConnection } from '../store/models.ts';
import { queryJs } from '../store/queries.ts';
import { parseReportParams } from './params.ts';
import { requireReport, runReport, type ReportScope } from './run.ts';

export interface Selection {
  vehicle?: string;
  department?: string;
}

interface Known {
  vehicle_id: number;
  registration: string | null;
  department: string | null;
}

const plate = (s: string) => s.replace(/[\s-]+/g, '').toUpperCase();
const named = (v: Known) => `${v.registration ?? '(no registration)'} (id ${v.vehicle_id})`;
const some = (items: string[], n = 8) =>
  items.length > n ? `${items.slice(0, n).join(', ')}, … (${items.length} in all)` : items.join(', ');

/** The account's vehicles, each with its department. */
async function knownVehicles(con: DuckDBConnection, scope: ReportScope): Promise<Known[]> {
  const def = requireReport('vehicles');
  const { rows } = await runReport(con, def, scope, parseReportParams({}, def, { ...scope, future: false }));
  return rows.map((r) => ({
    vehicle_id: Number(r.vehicle_id),
    registration: typeof r.registration === 'string' ? r.registration : null,
    department: typeof r.department === 'string' ? r.department : null,
  }));
}

/** Whether the filter's model (queries/models/selection.sql) selects the vehicle in the department. */
async function selects(con: DuckDBConnection, account: string, vehicle: number, department: string) {
  await prepareModelConnection(con);
  return (await queryJs(con, 'reports/selected_vehicles', { account, vehicle, department })).length > 0;
}

/**
 * The selection with `vehicle` as an id, or E_USAGE naming what matches nothing. `vehicle`: an id
 * (digits) or a registration.
 */
export async function resolveSelection(
  con: DuckDBConnection,
  scope: ReportScope,
  sel: Selection,
): Promise<Selection> {
  if (sel.vehicle === undefined && sel.department === undefined) return sel;
  const known = await knownVehicles(con, scope);
  let vehicle: Known | undefined;
  if (sel.vehicle !== undefined) {
    const text = sel.vehicle;
    const byId = /^\d{1,15}$/.test(text) ? known.filter((v) => v.vehicle_id === Number(text)) : [];
    const byPlate = known.filter((v) => v.registration !== null && plate(v.registration) === plate(text));
    const hits = byId.length ? byId : byPlate;
    if (hits.length === 0)
      throw new FleetsyncError(
        'E_USAGE',
        `--vehicle ${JSON.stringify(text)}: no vehicle of account ${scope.account} has that id or registration` +
          (known.length ? `; known: ${some(known.map(named))}` : ' (no vehicle is known: sync first)'),
      );
    if (hits.length > 1)
      throw new FleetsyncError(
        'E_USAGE',
        `--vehicle ${JSON.stringify(text)} is the registration of ${hits.length} vehicles: ${hits.map(named).join(', ')}; give the id`,
      );
    vehicle = hits[0]!;
  }
  if (sel.department !== undefined) {
    const departments = [...new Set(known.map((v) => v.department).filter((d) => d !== null))].sort();
    if (!departments.includes(sel.department))
      throw new FleetsyncError(
        'E_USAGE',
        `--department ${JSON.stringify(sel.department)}: no vehicle of account ${scope.account} is in that department` +
          (departments.length ? `; known departments: ${some(departments)}` : ''),
      );
    if (vehicle && !(await selects(con, scope.account, vehicle.vehicle_id, sel.department)))
      throw new FleetsyncError(
        'E_USAGE',
        `no vehicle matches --vehicle ${JSON.stringify(sel.vehicle)} with --department ${JSON.stringify(sel.department)}: ` +
          `${named(vehicle)} is in ${vehicle.department === null ? 'no department' : JSON.stringify(vehicle.department)}`,
      );
  }
  return {
    ...(vehicle ? { vehicle: String(vehicle.vehicle_id) } : {}),
    ...(sel.department !== undefined ? { department: sel.department } : {}),
  };
}
