/**
 * The account's endpoints as facts (DESIGN.md principle 8): which the credentials may not read
 * (403) and which the account does not have (404 on a collection endpoint), recorded per account
 * and endpoint in `endpoint_access` (queries/schema/044). A run trusts the endpoints recorded
 * `ok` (no probe), probes every other one once (src/api/access.ts), skips the streams that need a
 * refused one (executor, snapshots) and records what it learned: a refusal keeps its `since`
 * while it lasts, an endpoint that answers again becomes `ok` with a new `since`. The alerter
 * (src/alerts/incidents.ts judgeEndpoints) opens one incident per refused endpoint and closes it
 * when it answers again, so the alert goes out on a change, not every night.
 */
import { listValue, type DuckDBConnection } from '@duckdb/node-api';
import { ACCESS_WORDS, type AccessState, type AccessView } from '../api/access.ts';
import type { Logger } from '../log.ts';
import { execute, queryJs } from '../store/queries.ts';
import type { StreamDefinition } from './stream.ts';
import { iso, msOf } from '../time.ts';

export type EndpointState = AccessState | 'ok';

export interface EndpointAccess {
  endpoint: string;
  state: EndpointState;
  sinceMs: number;
  lastProbedMs: number;
  lastStatus: number | null;
  message: string | null;
  streams: string[];
  ledgerStreams: string[];
}

/** A change of an endpoint's state in this run. */
export interface AccessChange {
  endpoint: string;
  from: EndpointState | null;
  to: EndpointState;
  streams: string[];
}

const list = (v: unknown) => (typeof v === 'string' && v !== '' ? v.split(',') : []);

export async function readAccess(con: DuckDBConnection, account: string): Promise<EndpointAccess[]> {
  return (await queryJs(con, 'sync/endpoint_access_read', [account])).map((r) => ({
    endpoint: String(r.endpoint),
    state: String(r.state) as EndpointState,
    sinceMs: msOf(r.since),
    lastProbedMs: msOf(r.last_probed),
    lastStatus: r.last_status === null ? null : Number(r.last_status),
    message: r.message === null ? null : String(r.message),
    streams: list(r.streams),
    ledgerStreams: list(r.ledger_streams),
  }));
}

/** The endpoints recorded as answering: a run sends them without a probe. */
export async function trustedEndpoints(con: DuckDBConnection, account: string): Promise<string[]> {
  return (await readAccess(con, account)).filter((a) => a.state === 'ok').map((a) => a.endpoint);
}

/** The streams (and their ledger streams) skipped while `endpoint` is refused: those that call it, unless they read another way. */
export function streamsNeeding(defs: readonly StreamDefinition[], endpoint: string) {
  // A stream that reads another way where this endpoint is refused (fallbackEndpoints) goes on.
  const needing = defs.filter(
    (d) => d.endpoints.includes(endpoint) && !d.fallbackEndpoints?.includes(endpoint),
  );
  return { streams: needing.map((d) => d.name), ledgerStreams: needing.flatMap((d) => d.ledgerStreams) };
}

/** How a state reads in a sentence. */
export const stateWords = (s: EndpointState) => (s === 'ok' ? 'available' : ACCESS_WORDS[s]);

/**
 * Records what the run learned about the account's endpoints and returns the changes: each
 * endpoint refused in the run (with its status and message) and each one that answered.
 */
export async function recordAccess(
  con: DuckDBConnection,
  x: { account: string; nowMs: number; view: AccessView; defs: readonly StreamDefinition[]; log: Logger },
): Promise<AccessChange[]> {
  const before = new Map((await readAccess(con, x.account)).map((a) => [a.endpoint, a]));
  // each endpoint seen with the streams (and their ledger streams) it stops while refused
  const seen = [
    ...x.view.refused,
    ...x.view.answered.map((endpoint) => ({ endpoint, state: 'ok' as const, status: 200, message: null })),
  ].map((s) => ({ ...s, ...streamsNeeding(x.defs, s.endpoint) }));
  // One statement for all (an upsert each cost ~4 ms of CPU); an endpoint seen twice keeps its last state.
  const last = [...new Map(seen.map((s) => [s.endpoint, s])).values()];
  if (last.length) {
    const rows = last.map((s) => {
      const was = before.get(s.endpoint);
      const since = was && was.state === s.state ? was.sinceMs : x.nowMs;
      return { s, since: iso(since), streams: s.streams.join(','), ledgerStreams: s.ledgerStreams.join(',') };
    });
    await execute(con, 'sync/endpoint_access_upsert', [
      x.account,
      listValue(rows.map((r) => r.s.endpoint)),
      listValue(rows.map((r) => r.s.state)),
      listValue(rows.map((r) => r.since)),
      iso(x.nowMs),
      listValue(rows.map((r) => r.s.status)),
      listValue(rows.map((r) => r.s.message)),
      listValue(rows.map((r) => r.streams)),
      listValue(rows.map((r) => r.ledgerStreams)),
    ]);
  }
  const changes: AccessChange[] = [];
  for (const s of seen) {
    const was = before.get(s.endpoint);
    if (was?.state === s.state || (!was && s.state === 'ok')) continue;
    changes.push({ endpoint: s.endpoint, from: was?.state ?? null, to: s.state, streams: s.streams });
    if (s.state === 'ok')
      x.log.info('endpoint available again', {
        endpoint: s.endpoint,
        was: was?.state,
        streams: s.streams.join(','),
      });
    else
      x.log.warn('endpoint refused', {
        endpoint: s.endpoint,
        state: s.state,
        streams: s.streams.join(','),
        message: s.message,
      });
  }
  return changes;
}
