/**
 * The alerter: after every sync (serve's schedule and POST /api/sync, the `sync` command), on a
 * timer under `serve`, and from a process that could not even open the database, it judges the
 * state (src/alerts/incidents.ts) and delivers per channel: each channel remembers what it was
 * sent, so an incident reaches a channel once, a new or re-configured channel gets the incidents
 * open now, a cause that changes while an incident is open sends an update, and "recovered" goes
 * only to the channels that got the incident. That memory lives in the state file beside the
 * database (src/outcome/outcomes.ts), not in the database: a full disk still alerts, and a restart
 * does not alert again. The database is only read (the last runs, "complete through", the release
 * notes); without one (`db` null: it cannot be opened, or a worker that has none) the state file
 * alone is judged. A failing channel is logged and tried again on the next check; nothing here
 * ever fails a sync.
 */
import { listFlaggedChanges, type StoredFlag } from '../changes/index.ts';
import type { Config } from '../config.ts';
import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { outcomesFor, type AlertMemory, type RunOutcomes } from '../outcome/outcomes.ts';
import type { Database } from '../store/db.ts';
import { queryJs } from '../store/queries.ts';
import type { Clock } from '../time.ts';
import { DEFAULT_TIMEZONE } from '../defaults.ts';
import { channelsFor, type AlertMessage, type Channel } from './channels.ts';
import { unknownValuesOf, type UnknownValue } from '../status/report.ts';
import {
  judgeApiChanges,
  judgeCheckpoint,
  judgeRun,
  judgeStale,
  judgeUnknownValues,
  type Judgement,
} from './incidents.ts';
import { readAccountStates, withOutcomes, type AccountState } from './state.ts';
import { judgeEndpoints, readEndpointRows, type EndpointRow } from './endpoints.ts';
import { judgeService, readServiceRows, type ServiceRow } from './service.ts';

export interface Alerter {
  /** Judges the state now and sends each channel what it has not been sent yet. */
  check(): Promise<CheckResult>;
  close(): void;
}

export interface CheckResult {
  opened: string[];
  closed: string[];
  /** Each message delivered to at least one channel, once. */
  sent: AlertMessage[];
}

export interface AlerterOptions {
  /** The database to read (null: the state file alone). */
  db: Database | null;
  /** The run outcomes and the alerts' memory (default: the state file beside `db`). */
  outcomes?: RunOutcomes;
  config: Pick<Config, 'alertWebhook' | 'smtpUrl' | 'alertEmail' | 'alertFrom' | 'staleHours'> &
    Partial<Pick<Config, 'timezone'>>;
  log: Logger;
  now: Clock;
  /** Instead of the configured channels (tests of the logic alone). */
  channels?: Channel[];
  /** Incidents judged outside the database (a worker's given-up job), under the same rules. */
  judge?: (states: AccountState[]) => Judgement[];
}

const key = (account: string, incident: string) => `${account}\u0000${incident}`;
/** Without a channel the log is the channel: it "takes" every message. */
const LOG_CHANNEL: Channel = { name: 'log', id: 'log', send: async () => {}, close() {} };

/** What the database says, or null when it cannot be read (the state file is judged alone). */
async function readDatabase(
  db: Database,
  log: Logger,
  nowMs: number,
): Promise<{
  states: AccountState[];
  flagged: StoredFlag[];
  unknown: UnknownValue[];
  endpoints: EndpointRow[];
  service: ServiceRow[];
  legacy: Record<string, unknown>[];
} | null> {
  let con;
  try {
    con = await db.connect();
    const states = await readAccountStates(con, log);
    let flagged: StoredFlag[] = [];
    try {
      flagged = await listFlaggedChanges(con);
    } catch (e) {
      log.debug('release notes not readable', { error: describeError(e) });
    }
    let legacy: Record<string, unknown>[] = [];
    try {
      legacy = await queryJs(con, 'alerts/open_incidents');
    } catch (e) {
      log.debug('no incidents table', { error: describeError(e) });
    }
    let unknown: UnknownValue[] = [];
    try {
      unknown = await unknownValuesOf(con);
    } catch (e) {
      log.debug('unknown values not readable', { error: describeError(e) });
    }
    const endpoints = await readEndpointRows(con, log);
    const service = await readServiceRows(con, states, nowMs, log);
    return { states, flagged, unknown, endpoints, service, legacy };
  } catch (e) {
    log.warn('the database could not be read for alerts; judging the state file alone', {
      error: describeError(e),
    });
    return null;
  } finally {
    con?.closeSync();
  }
}

/**
 * The memory of a database alerted before the state file existed: its open incidents that were
 * delivered count as sent to every channel now configured (their cause is adopted at the next check).
 */
function seeded(legacy: Record<string, unknown>[], channels: Channel[]): AlertMemory {
  const mem: AlertMemory = { open: {}, closed: {}, channels: {} };
  for (const r of legacy) {
    if (r.closed_at !== null || r.notified_at === null) continue;
    const account = String(r.account);
    const incident = String(r.incident);
    const k = key(account, incident);
    const at = r.opened_at instanceof Date ? r.opened_at.getTime() : 0;
    mem.open[k] = { account, incident, cause: '*', text: String(r.summary), opened_ms: at };
    for (const c of channels) (mem.channels[c.id] ??= {})[k] = { state: 'open', cause: '*', sent_ms: at };
  }
  return mem;
}

export function createAlerter(opts: AlerterOptions): Alerter {
  const now = opts.now;
  const log = opts.log.child({ component: 'alerts' });
  const channels = opts.channels ?? channelsFor(opts.config);
  const targets = channels.length ? channels : [LOG_CHANNEL];
  const outcomes =
    opts.outcomes ?? (opts.db ? outcomesFor(opts.db.path, opts.log) : outcomesFor(':memory:', opts.log));
  let queue: Promise<unknown> = Promise.resolve();

  async function checkOnce(): Promise<CheckResult> {
    const t = now();
    const fromDb = opts.db ? await readDatabase(opts.db, log, t) : null;
    const doc = outcomes.read();
    const states = withOutcomes(fromDb?.states ?? null, doc, opts.config.timezone ?? DEFAULT_TIMEZONE);
    // "Complete through" moved (or is seen for the first time): recorded with the time it moved.
    const freshness: typeof doc.freshness = {};
    for (const s of states) {
      const f = doc.freshness[s.account];
      if (s.completeThroughMs === null || (f && s.completeThroughMs <= f.through_ms)) continue;
      s.advancedAtMs ??= t;
      freshness[s.account] = { through_ms: s.completeThroughMs, advanced_ms: s.advancedAtMs };
    }
    const mem: AlertMemory = structuredClone(doc.alerts ?? seeded(fromDb?.legacy ?? [], channels));
    const judged: Judgement[] = [
      ...states.flatMap((s) => [judgeRun(s), judgeStale(s, t, opts.config.staleHours)]),
      ...judgeCheckpoint(
        doc.checkpoint,
        states.map((s) => s.account),
      ),
      // Release notes are read from the database: without it, what is open stays open.
      ...(fromDb
        ? judgeApiChanges(
            fromDb.flagged,
            Object.values(mem.open)
              .filter((o) => o.incident.startsWith('api_change:'))
              .map((o) => o.incident.slice('api_change:'.length)),
          )
        : []),
      ...(fromDb
        ? judgeUnknownValues(
            fromDb.unknown,
            Object.values(mem.open).map((o) => [o.account, o.incident]),
          )
        : []),
      ...(fromDb ? judgeEndpoints(fromDb.endpoints) : []),
      ...(fromDb ? judgeService(fromDb.service) : []),
      ...(opts.judge?.(states) ?? []),
    ].filter((j): j is Judgement => j !== null);

    const result: CheckResult = { opened: [], closed: [], sent: [] };
    for (const j of judged) {
      const k = key(j.account, j.incident);
      const open = mem.open[k];
      if (j.state === 'open') {
        if (!open) result.opened.push(`${j.account}/${j.incident}`);
        mem.open[k] = { ...j, opened_ms: open?.opened_ms ?? t };
        delete mem.closed[k];
      } else if (open) {
        delete mem.open[k];
        mem.closed[k] = { account: j.account, incident: j.incident, text: j.text, closed_ms: t };
        result.closed.push(`${j.account}/${j.incident}`);
      }
    }

    // Per channel: what it has not been sent yet.
    const logged = new Set<string>();
    const delivered = new Map<string, AlertMessage>();
    await Promise.all(
      targets.map(async (c) => {
        const sent = (mem.channels[c.id] ??= {});
        const due: { k: string; m: AlertMessage; cause: string }[] = [];
        for (const [k, o] of Object.entries(mem.open)) {
          const d = sent[k];
          const m = { text: o.text, account: o.account, incident: o.incident };
          if (!d || d.state === 'recovered') due.push({ k, m: { ...m, state: 'open' }, cause: o.cause });
          else if (d.cause === '*')
            d.cause = o.cause; // a seeded delivery: the cause it was sent for
          else if (o.cause !== '*' && d.cause !== o.cause)
            due.push({ k, m: { ...m, state: 'update' }, cause: o.cause });
        }
        for (const [k, d] of Object.entries(sent)) {
          if (d.state !== 'open' || mem.open[k]) continue;
          const closed = mem.closed[k];
          const [account, incident] = k.split('\u0000') as [string, string];
          due.push({
            k,
            m: {
              text: closed?.text ?? `fleetsync: recovered: ${incident} of account ${account} is over.`,
              account,
              incident,
              state: 'recovered',
            },
            cause: d.cause,
          });
        }
        for (const { k, m, cause } of due) {
          const id = `${k}\u0000${m.state}\u0000${m.text}`;
          if (!logged.has(id)) {
            logged.add(id);
            if (m.state === 'recovered')
              log.info('alert recovered', { account: m.account, incident: m.incident, text: m.text });
            // a service due is news about a vehicle, not a failure of fleetsync: info, named so
            else if (m.incident.startsWith('service:'))
              log.info('service due', {
                account: m.account,
                incident: m.incident,
                state: m.state,
                text: m.text,
              });
            else
              log.warn('alert', { account: m.account, incident: m.incident, state: m.state, text: m.text });
          }
          try {
            await c.send(m);
          } catch (e) {
            log.warn('alert channel failed', {
              channel: c.name,
              incident: m.incident,
              error: describeError(e),
            });
            continue;
          }
          if (m.state === 'recovered') delete sent[k];
          else sent[k] = { state: 'open', cause, sent_ms: now() };
          delivered.set(id, m);
        }
      }),
    );
    result.sent = [...delivered.values()];
    // Forget channels no longer configured (configured again, they get what is open then) and
    // "recovered" texts no channel is waiting for.
    const ids = new Set(targets.map((c) => c.id));
    for (const id of Object.keys(mem.channels)) if (!ids.has(id)) delete mem.channels[id];
    for (const k of Object.keys(mem.closed))
      if (!Object.values(mem.channels).some((sent) => sent[k]?.state === 'open')) delete mem.closed[k];
    outcomes.update((d) => {
      d.alerts = mem;
      Object.assign(d.freshness, freshness);
    }, true);
    return result;
  }

  return {
    check() {
      // One check at a time (the timer and a finished run may meet): no incident is sent twice.
      const run = queue.then(async () => {
        try {
          return await checkOnce();
        } catch (e) {
          log.error('alert check failed', { error: describeError(e) });
          return { opened: [], closed: [], sent: [] };
        }
      });
      queue = run;
      return run;
    },
    close() {
      for (const c of channels) c.close();
    },
  };
}
