/**
 * Service due as incidents (issue 28 item 1; docs/service.md): one per vehicle whose service is
 * due or overdue by the service_due rule (queries/models/service_due.sql), opened once when it
 * becomes due, updated once when it becomes overdue, closed when a service recorded makes it ok
 * again. A vehicle whose status is unknown gets no verdict (what is open stays open). Pure
 * judgement like incidents.ts; the alerter compares it with what each channel was sent.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { SERVICE_FORECAST_DAYS, SERVICE_FORECAST_MIN_DAYS } from '../defaults.ts';
import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { queryJs } from '../store/queries.ts';
import type { Judgement } from './incidents.ts';
import type { AccountState } from './state.ts';

export interface ServiceRow {
  account: string;
  vehicleId: number;
  registration: string;
  status: string;
  reason: string | null;
  nextServiceDay: string | null;
  kmRemaining: number | null;
}

/** The due list of each account (on a connection the models are prepared on: readAccountStates). */
export async function readServiceRows(
  con: DuckDBConnection,
  states: readonly Pick<AccountState, 'account' | 'zone'>[],
  nowMs: number,
  log: Logger,
): Promise<ServiceRow[]> {
  const out: ServiceRow[] = [];
  for (const s of states)
    try {
      const rows = await queryJs(con, 'alerts/service_due', {
        account: s.account,
        zone: s.zone,
        now_ms: Math.floor(nowMs),
        forecast_days: SERVICE_FORECAST_DAYS,
        min_days: SERVICE_FORECAST_MIN_DAYS,
      });
      for (const r of rows)
        out.push({
          account: s.account,
          vehicleId: Number(r.vehicle_id),
          registration: String(r.registration),
          status: String(r.status),
          reason: r.reason === null ? null : String(r.reason),
          nextServiceDay: r.next_service_day === null ? null : String(r.next_service_day),
          kmRemaining: r.km_remaining === null ? null : Number(r.km_remaining),
        });
    } catch (e) {
      // A read-only lake published before the service tables existed: nothing to judge.
      log.debug('service due not readable', { account: s.account, error: describeError(e) });
    }
  return out;
}

/**
 * The due list in a few words, for a console that starts with a fleet (the demo): "4 vehicles
 * overdue for service, 3 due soon"; '' when none is due. Due services are news about vehicles,
 * not failures: the service page lists them.
 */
export function serviceDueText(rows: readonly Pick<ServiceRow, 'status'>[]): string {
  const n = (status: string) => rows.filter((r) => r.status === status).length;
  const [overdue, due] = [n('overdue'), n('due')];
  const vehicles = (k: number) => `${k} vehicle${k === 1 ? '' : 's'}`;
  const parts = [
    overdue ? `${vehicles(overdue)} overdue for service` : '',
    due ? (overdue ? `${due} due soon` : `${vehicles(due)} due for service soon`) : '',
  ].filter(Boolean);
  return parts.join(', ');
}

export function judgeService(rows: readonly ServiceRow[]): Judgement[] {
  const out: Judgement[] = [];
  for (const r of rows) {
    const base = { account: r.account, incident: `service:${r.vehicleId}` };
    const vehicle = `vehicle ${r.registration} (${r.vehicleId})`;
    if (r.status === 'due' || r.status === 'overdue')
      out.push({
        ...base,
        state: 'open',
        cause: r.status,
        text:
          `fleetsync: account ${r.account}: ${vehicle} is ${r.status === 'due' ? 'due for service soon' : 'overdue for service'}` +
          `${r.reason ? `: ${r.reason}` : ''}. See the service page; record the service with \`fleetsync service done\`.`,
      });
    else if (r.status === 'ok')
      out.push({
        ...base,
        state: 'closed',
        cause: 'ok',
        text: `fleetsync: recovered: account ${r.account}: ${vehicle} is not due for service any more.`,
      });
  }
  return out;
}
