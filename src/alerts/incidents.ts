/**
 * Incidents from state: which should be open now (a failed or partial last run, stale data, an
 * unacknowledged release note that changes an endpoint the sync uses, a value the API sent that
 * this version does not know), each with the text of its
 * alert and of its "recovered". Pure: the alerter compares them with the stored incidents.
 */
import type { StoredFlag } from '../changes/index.ts';
import type { CheckpointFailure } from '../outcome/checkpoint-types.ts';
import type { UnknownValue } from '../server/api-types.ts';
import { formatLocalMinute } from '../time.ts';
import { failedIn, isStale, unchangedForMs, type AccountState } from './state.ts';

/** `open`: the incident holds now; `closed`: it is known to be over; absent: no judgement (keep as is). */
export interface Judgement {
  account: string;
  incident: string;
  state: 'open' | 'closed';
  /** The alert's text when open, the "recovered" text when closed. */
  text: string;
  /** What the incident is about, without the run id or times: a change of cause while open sends an update. */
  cause: string;
}

/**
 * A reason as a cause: its code when it names one (`stopped (E_AUTH): …`, `… failed (ENOSPC): …`,
 * `E_DB: …`), so the same failure met at another statement or file is the same cause; else its
 * text without numbers (another run, another time: the same cause).
 */
export function causeOf(reason: string | undefined): string {
  const r = reason ?? '';
  const code =
    /\((E_[A-Z_]+|E[A-Z]{2,}|DuckDB [A-Z]+)\)/.exec(r)?.[1] ?? /^(E_[A-Z_]+):/.exec(r)?.[1] ?? null;
  return code ?? r.replace(/\d+/g, '#').slice(0, 200);
}

export function judgeRun(s: AccountState): Judgement | null {
  const r = s.lastRun;
  if (!r || r.outcome === 'interrupted') return null; // no verdict: the next run decides
  const base = { account: s.account, incident: 'run' };
  if (r.outcome === 'ok')
    return {
      ...base,
      state: 'closed',
      cause: 'ok',
      text: `fleetsync: recovered: the sync of account ${s.account} is ok again (run ${r.run_id}, ended ${formatLocalMinute(r.endedMs, s.zone)}).`,
    };
  const stop = r.errors.find((e) => e.stream === '*')?.reason;
  const first = r.errors.find((e) => e.stream !== '*');
  const failed = failedIn(r);
  const what =
    r.outcome === 'failed'
      ? `failed${stop ? `: ${stop}` : ''}`
      : `was partial: ${failed} window(s) or snapshot(s) failed${first ? ` (first: ${first.stream} ${first.window ?? ''}: ${first.reason ?? ''})` : ''}; the next run fills the gaps`;
  const died = r.recorded === false && r.errors[0]?.reason?.startsWith('the process (pid');
  return {
    ...base,
    state: 'open',
    cause: r.outcome === 'failed' ? `failed: ${died ? 'died' : causeOf(stop)}` : 'partial',
    text: `fleetsync: the sync of account ${s.account} ${what}. Run ${r.run_id} (${r.trigger}), ended ${formatLocalMinute(r.endedMs, s.zone)}.`,
  };
}

export function judgeStale(s: AccountState, nowMs: number, staleHours: number): Judgement | null {
  const u = unchangedForMs(s, nowMs);
  if (u === null || s.completeThroughMs === null) return null;
  const through = formatLocalMinute(s.completeThroughMs, s.zone);
  const base = { account: s.account, incident: 'stale' };
  return isStale(s, nowMs, staleHours)
    ? {
        ...base,
        state: 'open',
        cause: 'stale',
        text: `fleetsync: the data of account ${s.account} is stale: no new complete day for ${Math.floor(u / 3_600_000)} h (complete through ${through}, ${s.zone}; FLEETSYNC_STALE_HOURS=${staleHours}).`,
      }
    : {
        ...base,
        state: 'closed',
        cause: 'fresh',
        text: `fleetsync: recovered: the data of account ${s.account} is complete through ${through} (${s.zone}) again.`,
      };
}

/** One incident per release version with unacknowledged changes to endpoints the sync uses. */
export function judgeApiChanges(flagged: StoredFlag[], openVersions: string[]): Judgement[] {
  const byVersion = new Map<string, StoredFlag[]>();
  for (const f of flagged) byVersion.set(f.version, [...(byVersion.get(f.version) ?? []), f]);
  const out: Judgement[] = [];
  for (const [version, fs] of byVersion) {
    const endpoints = [...new Set(fs.flatMap((f) => f.syncEndpoints))].join(', ');
    const kinds = [...new Set(fs.map((f) => f.kind))].join('/');
    out.push({
      account: '*',
      incident: `api_change:${version}`,
      state: 'open',
      cause: version,
      text:
        `fleetsync: the API's release notes ${version} (${kinds}) change endpoints the sync uses: ${endpoints}. ` +
        `${fs[0]!.text.split('\n')[0]} Acknowledge with \`fleetsync changes --ack\` or on the dashboard.`,
    });
  }
  for (const v of openVersions)
    if (!byVersion.has(v))
      out.push({
        account: '*',
        incident: `api_change:${v}`,
        state: 'closed',
        cause: v,
        text: `fleetsync: acknowledged: the API release notes ${v} no longer need attention.`,
      });
  return out;
}

const UNKNOWN_PREFIX = 'unknown_value:';

/**
 * One incident per account, field and value the API sent that this version does not know: open
 * while a stored record carries it (alerted once), closed when none does any more (the record
 * moved on to a known value). `openIncidents`: the open incidents stored, as `[account, incident]`.
 */
export function judgeUnknownValues(values: UnknownValue[], openIncidents: [string, string][]): Judgement[] {
  const out: Judgement[] = values.map((v) => ({
    account: v.account,
    incident: `${UNKNOWN_PREFIX}${v.field}:${v.value}`,
    state: 'open',
    // The value itself: more records in it later are the same incident, not an update.
    cause: `${v.field}:${v.value}`,
    text:
      `fleetsync: account ${v.account}: ${v.text}. It is stored as sent; figures that depend on it are ` +
      'blank until a version that knows it (see the data-quality page).',
  }));
  const now = new Set(out.map((j) => `${j.account}\u0000${j.incident}`));
  for (const [account, incident] of openIncidents)
    if (incident.startsWith(UNKNOWN_PREFIX) && !now.has(`${account}\u0000${incident}`))
      out.push({
        account,
        incident,
        state: 'closed',
        cause: 'ok',
        text: `fleetsync: recovered: account ${account}: no stored record carries ${incident.slice(UNKNOWN_PREFIX.length).replace(':', ' ')} any more.`,
      });
  return out;
}

/**
 * The database file could not take the synced data (a failed checkpoint kept in the state file,
 * src/store/checkpoint.ts): open for each account whose runs wait in the write-ahead log, closed
 * once a checkpoint succeeded. `accounts`: the accounts known (a closed judgement for each).
 */
export function judgeCheckpoint(c: CheckpointFailure | null | undefined, accounts: string[]): Judgement[] {
  const held = c ? [...new Set(c.runs.map((r) => r.account))] : [];
  return [...new Set([...accounts, ...held])].map((account) =>
    c && (held.includes(account) || held.length === 0)
      ? {
          account,
          incident: 'checkpoint',
          state: 'open',
          cause: 'checkpoint',
          text: `fleetsync: the database file could not take the synced data of account ${account}: ${c.problem}`,
        }
      : {
          account,
          incident: 'checkpoint',
          state: 'closed',
          cause: 'ok',
          text: `fleetsync: recovered: the database file holds the synced data of account ${account} again (a checkpoint succeeded).`,
        },
  );
}
