/**
 * The alerter: after every sync (serve's schedule and POST /api/sync, the `sync` command) and on a
 * timer under `serve`, it judges the state (src/alerts/incidents.ts), compares it with the incidents
 * stored in the database and sends one alert when an incident opens and one "recovered" when it
 * clears — never one per run or per check, and not again after a restart (the incidents are
 * stored). An alert no channel took is retried on the next check. A failing channel is logged;
 * nothing here ever fails a sync.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { listFlaggedChanges, type StoredFlag } from '../changes/index.ts';
import type { Config } from '../config.ts';
import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Database } from '../store/db.ts';
import { execute, queryJs } from '../store/queries.ts';
import type { Clock } from '../time.ts';
import { channelsFor, type AlertMessage, type Channel } from './channels.ts';
import { judgeEndpoints, readEndpointRows } from './endpoints.ts';
import { judgeApiChanges, judgeRun, judgeStale, type Judgement } from './incidents.ts';
import { readAccountStates, recordFreshness } from './state.ts';

export interface Alerter {
  /** Judges the state now and sends what opened or cleared (and what is still undelivered). */
  check(): Promise<CheckResult>;
  close(): void;
}

export interface CheckResult {
  opened: string[];
  closed: string[];
  sent: AlertMessage[];
}

export interface AlerterOptions {
  db: Database;
  config: Pick<Config, 'alertWebhook' | 'smtpUrl' | 'alertEmail' | 'alertFrom' | 'staleHours'>;
  log: Logger;
  now?: Clock;
  /** Instead of the configured channels (tests of the logic alone). */
  channels?: Channel[];
}

interface Stored {
  account: string;
  incident: string;
  opened_at: Date;
  summary: string;
  notified_at: Date | null;
  closed_at: Date | null;
  close_summary: string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();
const key = (account: string, incident: string) => `${account}\u0000${incident}`;

export function createAlerter(opts: AlerterOptions): Alerter {
  const now = opts.now ?? Date.now;
  const log = opts.log.child({ component: 'alerts' });
  const channels = opts.channels ?? channelsFor(opts.config);
  let queue: Promise<unknown> = Promise.resolve();

  /** True when at least one channel took the message (or there is none: the log is the channel). */
  async function deliver(m: AlertMessage): Promise<boolean> {
    if (m.state === 'open') log.warn('alert', { account: m.account, incident: m.incident, text: m.text });
    else log.info('alert recovered', { account: m.account, incident: m.incident, text: m.text });
    if (channels.length === 0) return true;
    const results = await Promise.allSettled(channels.map((c) => c.send(m)));
    results.forEach((r, i) => {
      if (r.status === 'rejected')
        log.warn('alert channel failed', {
          channel: channels[i]!.name,
          incident: m.incident,
          error: describeError(r.reason),
        });
    });
    return results.some((r) => r.status === 'fulfilled');
  }

  async function checkOnce(con: DuckDBConnection): Promise<CheckResult> {
    const t = now();
    const states = await recordFreshness(con, await readAccountStates(con, log), t);
    let flagged: StoredFlag[] = [];
    try {
      flagged = await listFlaggedChanges(con);
    } catch (e) {
      log.debug('release notes not readable', { error: describeError(e) });
    }
    const stored = (await queryJs(con, 'alerts/open_incidents')) as unknown as Stored[];
    const open = new Map(
      stored.filter((s) => s.closed_at === null).map((s) => [key(s.account, s.incident), s]),
    );
    const judged: Judgement[] = [
      ...states.flatMap((s) => [judgeRun(s), judgeStale(s, t, opts.config.staleHours)]),
      ...judgeApiChanges(
        flagged,
        [...open.values()]
          .filter((s) => s.incident.startsWith('api_change:'))
          .map((s) => s.incident.slice('api_change:'.length)),
      ),
      ...judgeEndpoints(await readEndpointRows(con, log)),
    ].filter((j): j is Judgement => j !== null);

    const result: CheckResult = { opened: [], closed: [], sent: [] };
    const pending: { m: AlertMessage; row: [string, string, string]; close: boolean }[] = [];
    for (const j of judged) {
      const s = open.get(key(j.account, j.incident));
      if (j.state === 'open' && !s) {
        await execute(con, 'alerts/open', [j.account, j.incident, iso(t), j.text]);
        result.opened.push(`${j.account}/${j.incident}`);
        pending.push({
          m: { text: j.text, account: j.account, incident: j.incident, state: 'open' },
          row: [j.account, j.incident, iso(t)],
          close: false,
        });
      } else if (j.state === 'closed' && s) {
        const row: [string, string, string] = [s.account, s.incident, s.opened_at.toISOString()];
        await execute(con, 'alerts/close', [...row, iso(t), j.text]);
        result.closed.push(`${j.account}/${j.incident}`);
        if (s.notified_at) {
          pending.push({
            m: { text: j.text, account: j.account, incident: j.incident, state: 'recovered' },
            row,
            close: true,
          });
        } else {
          // Its alert never got out: no "recovered" either.
          await execute(con, 'alerts/close_notified', [...row, iso(t)]);
          log.info('incident cleared before its alert was delivered', {
            account: s.account,
            incident: s.incident,
          });
        }
        open.delete(key(j.account, j.incident));
      }
    }
    // Undelivered alerts of earlier checks (every channel failed then): tried again.
    for (const s of stored) {
      const row: [string, string, string] = [s.account, s.incident, s.opened_at.toISOString()];
      if (s.closed_at === null && s.notified_at === null && open.has(key(s.account, s.incident)))
        pending.push({
          m: { text: s.summary, account: s.account, incident: s.incident, state: 'open' },
          row,
          close: false,
        });
      else if (s.closed_at !== null && s.notified_at !== null)
        pending.push({
          m: { text: s.close_summary ?? '', account: s.account, incident: s.incident, state: 'recovered' },
          row,
          close: true,
        });
    }
    for (const p of pending) {
      if (!(await deliver(p.m))) continue;
      result.sent.push(p.m);
      await execute(con, p.close ? 'alerts/close_notified' : 'alerts/notified', [...p.row, iso(now())]);
    }
    return result;
  }

  return {
    check() {
      // One check at a time (the timer and a finished run may meet): no incident is opened twice.
      const run = queue.then(async () => {
        const con = await opts.db.connect();
        try {
          return await checkOnce(con);
        } catch (e) {
          log.error('alert check failed', { error: describeError(e) });
          return { opened: [], closed: [], sent: [] };
        } finally {
          con.closeSync();
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
