/**
 * The last outcome of a run per account, outside the database: in this process's memory and in
 * the state file beside the database (`<FLEETSYNC_DB>.state`, src/outcome/state-file.ts), which a
 * full disk can still update. A run is recorded `running` before the database is opened, keeps its
 * last request time and last log line there as it goes, and ends with its outcome and whether its
 * `runs` row could be written. The alerter keeps its memory here too (the incidents open, what
 * each channel was sent, when "complete through" last moved), so an alert needs no database write.
 * One object per state file and process (`outcomesFor`): the sync, the alerter, /healthz and
 * `status` of a process share it.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { STATE_FILE_SLOT_BYTES } from '../defaults.ts';
import type { CheckpointFailure } from './checkpoint-types.ts';
import { openStateFile, type StateFile } from './state-file.ts';

export type { CheckpointFailure };

export type OutcomeState = 'running' | 'ok' | 'partial' | 'failed' | 'interrupted';

export interface RunOutcome {
  /** Null until the run has its id (it is recorded before the database is opened). */
  run_id: string | null;
  state: OutcomeState;
  trigger: string;
  pid: number;
  host: string;
  started_ms: number;
  ended_ms: number | null;
  /** The latest moment the API can have counted one of the run's requests (rate-limit hold). */
  last_request_ms: number | null;
  requests: number;
  /** The last line the process logged (redacted as logged). */
  last_log: string | null;
  /** Why the run failed or was partial. */
  error: string | null;
  /** Whether the run's `runs` row holds this outcome. */
  recorded: boolean;
}

/** What an alert channel was last sent about an incident. */
export interface Delivery {
  state: 'open' | 'recovered';
  cause: string;
  sent_ms: number;
}

export interface AlertMemory {
  /** Open incidents by `account\u0000incident`: the current alert text and cause. */
  open: Record<string, { account: string; incident: string; cause: string; text: string; opened_ms: number }>;
  /** Closed incidents some channel still has to hear "recovered" about. */
  closed: Record<string, { account: string; incident: string; text: string; closed_ms: number }>;
  /** Per channel id: what it was sent, by incident key. */
  channels: Record<string, Record<string, Delivery>>;
}

export interface OutcomeDoc {
  accounts: Record<string, RunOutcome>;
  /** Set while the database file lacks what the write-ahead log holds (absent in older files). */
  checkpoint?: CheckpointFailure | null;
  /** When "complete through" last moved forward, per account (the stale rule's clock). */
  freshness: Record<string, { through_ms: number; advanced_ms: number }>;
  alerts: AlertMemory | null;
}

export interface RunHandle {
  /** The run has its id. */
  named(runId: string): void;
  /** The API's latest possible count of a request of the run, and the requests so far. */
  activity(lastRequestMs: number | null, requests: number): void;
  end(o: {
    state: Exclude<OutcomeState, 'running'>;
    error: string | null;
    recorded: boolean;
    nowMs: number;
  }): void;
  /** Nothing ran (the database was held by another process, a bad request): the previous outcome is back. */
  abandon(): void;
}

export interface RunOutcomes {
  /** The state file (null: memory only, a `:memory:` database). */
  readonly path: string | null;
  read(): OutcomeDoc;
  /** Applies `change` to the newest document and writes it (`sync`: flushed to the disk). */
  update(change: (doc: OutcomeDoc) => void, sync?: boolean): void;
  /** Records `account` as running in this process (before the database is opened). */
  begin(account: string, trigger: string, nowMs: number): RunHandle;
  /** The last line this process logged, kept with every run it has running. */
  noteLog(line: string): void;
}

const empty = (): OutcomeDoc => ({ accounts: {}, freshness: {}, alerts: null });
const LOG_LINE_CHARS = 500;
const ERROR_CHARS = 1000;
/** A log line is written to the file at most this often (the rest wait in memory for the next). */
const LOG_FLUSH_MS = 200;

/** Whether the process that recorded a run is still alive (a run on another host: assumed alive). */
export function isAlive(o: Pick<RunOutcome, 'pid' | 'host'>): boolean {
  if (o.host !== hostname()) return true;
  if (o.pid === process.pid) return true;
  try {
    process.kill(o.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function createOutcomes(path: string | null, log?: Logger): RunOutcomes {
  let mem = empty();
  let file: StateFile<OutcomeDoc> | null = null;
  let warned = false;
  const problem = (what: string, e: unknown) => {
    if (warned) return;
    warned = true;
    log?.warn('state file not usable; run outcomes kept in memory only', {
      file: path,
      what,
      error: describeError(e),
    });
  };
  const handle = (): StateFile<OutcomeDoc> | null => {
    if (file || path === null) return file;
    try {
      mkdirSync(dirname(path), { recursive: true });
      file = openStateFile<OutcomeDoc>(path, STATE_FILE_SLOT_BYTES);
    } catch (e) {
      problem('create', e);
    }
    return file;
  };
  const read = (): OutcomeDoc => {
    const f = handle();
    if (!f) return mem;
    try {
      const d = f.read();
      if (d) mem = { ...empty(), ...d };
    } catch (e) {
      problem('read', e);
    }
    return mem;
  };
  const update = (change: (doc: OutcomeDoc) => void, sync = false) => {
    const doc = structuredClone(read());
    change(doc);
    mem = doc;
    try {
      handle()?.write(doc, sync);
    } catch (e) {
      problem('write', e);
    }
  };

  // The previous outcome of an account this process began (put back by `abandon`).
  const before = new Map<string, RunOutcome | undefined>();
  const mine = (o: RunOutcome | undefined) => o?.state === 'running' && o.pid === process.pid;
  let pendingLog: string | null = null;
  let lastFlush = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flushLog = () => {
    timer = null;
    lastFlush = Date.now();
    const line = pendingLog;
    if (line === null) return;
    pendingLog = null;
    update((d) => {
      for (const o of Object.values(d.accounts)) if (mine(o)) o.last_log = line;
    });
  };

  return {
    path,
    read,
    update,
    begin(account, trigger, nowMs) {
      const cur = read().accounts[account];
      // The command recorded it before the database opened; the run itself takes it over.
      if (!(mine(cur) && cur!.run_id === null)) before.set(account, cur);
      update((d) => {
        d.accounts[account] = {
          run_id: null,
          state: 'running',
          trigger,
          pid: process.pid,
          host: hostname(),
          started_ms: nowMs,
          ended_ms: null,
          last_request_ms: null,
          requests: 0,
          last_log: null,
          error: null,
          recorded: false,
        };
      }, true);
      const edit = (f: (o: RunOutcome) => void, sync = false) =>
        update((d) => {
          const o = d.accounts[account];
          if (o) f(o);
        }, sync);
      return {
        named: (runId) => edit((o) => void (o.run_id = runId)),
        activity(lastRequestMs, requests) {
          const o = mem.accounts[account];
          if (o && o.last_request_ms === lastRequestMs && o.requests === requests) return;
          edit((x) => {
            x.last_request_ms = lastRequestMs;
            x.requests = requests;
          });
        },
        end({ state, error, recorded, nowMs: t }) {
          if (timer) flushLog();
          edit((o) => {
            o.state = state;
            o.error = error === null ? null : error.slice(0, ERROR_CHARS);
            o.recorded = recorded;
            o.ended_ms = t;
          }, true);
          before.delete(account);
        },
        abandon() {
          const prev = before.get(account);
          before.delete(account);
          update((d) => {
            if (prev) d.accounts[account] = prev;
            else delete d.accounts[account];
          }, true);
        },
      };
    },
    noteLog(line) {
      if (!Object.values(mem.accounts).some(mine)) return;
      pendingLog = line.slice(0, LOG_LINE_CHARS);
      if (Date.now() - lastFlush >= LOG_FLUSH_MS) flushLog();
      else if (!timer) {
        timer = setTimeout(flushLog, LOG_FLUSH_MS);
        timer.unref();
      }
    },
  };
}

/** The state file of the database at `dbPath` as it is now, without creating it (a reader: `status`). */
export function readOutcomes(dbPath: string): OutcomeDoc {
  const path = stateFilePath(dbPath);
  if (!path || !existsSync(path)) return empty();
  try {
    return { ...empty(), ...(openStateFile<OutcomeDoc>(path, STATE_FILE_SLOT_BYTES).read() ?? {}) };
  } catch {
    return empty();
  }
}

const shared = new Map<string, RunOutcomes>();

/** The state file of the database at `dbPath`: `<dbPath>.state`. */
export const stateFilePath = (dbPath: string): string | null =>
  dbPath === ':memory:' ? null : `${dbPath}.state`;

/** This process's one outcomes object for the database at `dbPath` (created on first use). */
export function outcomesFor(dbPath: string, log?: Logger): RunOutcomes {
  let o = shared.get(dbPath);
  if (!o) {
    o = createOutcomes(stateFilePath(dbPath), log);
    if (dbPath !== ':memory:') shared.set(dbPath, o);
  }
  return o;
}
