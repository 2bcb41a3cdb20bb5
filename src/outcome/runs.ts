/**
 * A run as the state file beside the database knows it, in the shape the database's last runs
 * have: what status, health and alerts show for a run whose row could not be written or whose
 * process died before it could end it.
 */
import { isAlive, type OutcomeDoc, type RunOutcome } from './outcomes.ts';

export interface LastRun {
  run_id: string;
  /** False when the outcome is known only from the state file beside the database (its row could not be written, or the process died). */
  recorded?: boolean;
  trigger: string;
  outcome: 'ok' | 'partial' | 'failed' | 'interrupted';
  startedMs: number;
  endedMs: number;
  durationMs: number;
  windowsByStream: Record<string, Record<string, number>>;
  errors: { stream?: string; scope?: string; window?: string; reason?: string }[];
}

/** The text of a run whose process died before it could end it (killed, out of memory, an abort). */
export function diedText(o: RunOutcome): string {
  return (
    `the process (pid ${o.pid}) ended before the run finished — killed, out of memory or an abort inside the database` +
    (o.last_log ? `; the last thing it logged: ${o.last_log}` : '; it logged nothing')
  );
}

/** A run as the state file knows it (null: running in a live process, no verdict yet). */
export function runFromOutcome(o: RunOutcome): LastRun | null {
  const died = o.state === 'running';
  if (died && isAlive(o)) return null;
  const end = o.ended_ms ?? o.last_request_ms ?? o.started_ms;
  return {
    run_id: o.run_id ?? 'not started',
    recorded: false,
    trigger: o.trigger,
    outcome: died ? 'failed' : o.state === 'running' ? 'failed' : o.state,
    startedMs: o.started_ms,
    endedMs: end,
    durationMs: end - o.started_ms,
    windowsByStream: {},
    errors: [{ stream: '*', reason: died ? diedText(o) : (o.error ?? undefined) }],
  };
}

/**
 * The runs the state file knows and the database's last runs (`held`, by account) do not hold:
 * a run whose row could not be written, a run whose process died. A run the database holds
 * (the same id, or a later run) is the database's.
 */
export function runsOutsideDb(
  held: Map<string, Pick<LastRun, 'run_id' | 'startedMs'> | null>,
  doc: OutcomeDoc,
): { account: string; run: LastRun }[] {
  return Object.entries(doc.accounts).flatMap(([account, o]) => {
    const run = runFromOutcome(o);
    const h = held.get(account);
    if (!run || (h && (h.startedMs > o.started_ms || (h.run_id === o.run_id && o.recorded)))) return [];
    return [{ account, run }];
  });
}
