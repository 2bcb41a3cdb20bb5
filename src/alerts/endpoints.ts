/**
 * The account's endpoints as incidents (src/sync/access.ts): one per endpoint refused (403: not
 * permitted for these credentials; 404: not available on this account), open while it lasts and
 * closed ("available again") when the endpoint answers, so an alert goes out when the state
 * changes, never every night. Pure, like incidents.ts: the alerter compares with what is stored.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { queryJs } from '../store/queries.ts';
import { stateWords, type EndpointState } from '../sync/access.ts';
import { msOf } from '../time.ts';
import type { Judgement } from './incidents.ts';

export interface EndpointRow {
  account: string;
  endpoint: string;
  state: EndpointState;
  sinceMs: number;
  lastStatus: number | null;
  streams: string[];
}

export async function readEndpointRows(con: DuckDBConnection, log: Logger): Promise<EndpointRow[]> {
  try {
    return (await queryJs(con, 'alerts/endpoint_access')).map((r) => ({
      account: String(r.account),
      endpoint: String(r.endpoint),
      state: String(r.state) as EndpointState,
      sinceMs: msOf(r.since),
      lastStatus: r.last_status === null ? null : Number(r.last_status),
      streams: typeof r.streams === 'string' && r.streams ? r.streams.split(',') : [],
    }));
  } catch (e) {
    // A read-only lake published before this table existed: nothing to judge.
    log.debug('endpoint access not readable', { error: describeError(e) });
    return [];
  }
}

export function judgeEndpoints(rows: readonly EndpointRow[]): Judgement[] {
  return rows.map((r) => {
    const base = { account: r.account, incident: `endpoint:${r.endpoint}` };
    const streams = r.streams.length ? r.streams.join(', ') : 'none';
    if (r.state === 'ok')
      return {
        ...base,
        state: 'closed' as const,
        cause: 'ok',
        text: `fleetsync: available again: ${r.endpoint} answers for account ${r.account}; the streams that need it resume (${streams}).`,
      };
    return {
      ...base,
      state: 'open' as const,
      // Refused or missing: a change between the two is an update; a new probe time is not.
      cause: r.state,
      text:
        `fleetsync: ${r.endpoint} is ${stateWords(r.state)} for account ${r.account} (HTTP ${r.lastStatus ?? '?'} since ${new Date(r.sinceMs).toISOString()}). ` +
        `The streams that need it are skipped (${streams}); every run asks once and resumes them when it answers.`,
    };
  });
}
