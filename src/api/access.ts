/**
 * Endpoints the account may not read (403: not permitted for these credentials) or does not have
 * (404 on a collection endpoint, one whose path names no vehicle, driver or booking: not
 * available on this account) are facts about the account, not failures (DESIGN.md principle 8).
 *
 * The gate keeps them per client and run: an endpoint not known to answer is on probation — its
 * first request goes alone (the probe) and every other request of it waits for the answer; once
 * refused, every later request of it ends at once with the same refusal, without being sent. So
 * an endpoint the account lacks costs one request per run, however many windows would use it.
 * `reset(trusted)` starts a run: the endpoints recorded as answering go without a probe.
 */
import { FleetsyncError, isFleetsyncError } from '../errors.ts';

export type AccessState = 'not_permitted' | 'not_available';

export interface Refusal {
  endpoint: string;
  state: AccessState;
  status: number;
  message: string;
}

/** Is `e` a refusal of one endpoint (the stream that needs it is skipped, the run goes on)? */
export function isAccessRefusal(e: unknown): e is FleetsyncError {
  return isFleetsyncError(e, 'E_NOT_PERMITTED') || isFleetsyncError(e, 'E_ENDPOINT_MISSING');
}

export function refusalOf(e: FleetsyncError): Refusal {
  const d = e.details ?? {};
  return {
    endpoint: String(d.endpoint),
    state: e.code === 'E_NOT_PERMITTED' ? 'not_permitted' : 'not_available',
    status: Number(d.status),
    message: e.message,
  };
}

/** What a state means, in the words `status`, the dashboard and alerts use. */
export const ACCESS_WORDS: Record<AccessState, string> = {
  not_permitted: 'not permitted for these credentials',
  not_available: 'not available on this account',
};

/** A collection endpoint's template names no object (`{registration}`, `{driver_id}`, …). */
export const isCollection = (endpoint: string) => !endpoint.includes('{');

/**
 * The refusal an answer means, or null: 403 anywhere, 404 on a collection endpoint. The API's
 * message and the details are read only for a refusal (every 2xx body passes here).
 */
export function accessRefusal(
  endpoint: string,
  status: number,
  apiMessage: () => string,
  details: () => Record<string, unknown>,
): FleetsyncError | null {
  if (status !== 403 && !(status === 404 && isCollection(endpoint))) return null;
  // The API's message ends a sentence ("… main account credentials."); ours goes on after a colon.
  const said = apiMessage().replace(/[.\s]+$/, '');
  if (status === 403)
    return new FleetsyncError(
      'E_NOT_PERMITTED',
      `${endpoint}: HTTP 403 ${said}: ${ACCESS_WORDS.not_permitted} (the stream that needs it is skipped; an Administrator can grant it)`,
      { details: { ...details(), status } },
    );
  return new FleetsyncError(
    'E_ENDPOINT_MISSING',
    `${endpoint}: HTTP 404 ${said}: ${ACCESS_WORDS.not_available} (the stream that needs it is skipped)`,
    { details: { ...details(), status } },
  );
}

export interface AccessView {
  /** Endpoints answered 2xx since the run started. */
  answered: string[];
  /** Endpoints refused since the run started. */
  refused: Refusal[];
}

export interface EndpointGate {
  /**
   * Waits until a request of `endpoint` may be sent; throws its refusal if it has one. True: this
   * request is the probe. `signal` is asked for only when the request has to wait.
   */
  enter(endpoint: string, signal?: () => AbortSignal): Promise<boolean>;
  /** An answer that is not a refusal: the endpoint is open (`ok`: it answered 2xx). */
  open(endpoint: string, ok: boolean): void;
  refuse(endpoint: string, e: FleetsyncError): void;
  /** The request ended; a probe that got no verdict (aborted, stopped) lets the next one probe. */
  leave(endpoint: string, probe: boolean): void;
  reset(trusted: Iterable<string>): void;
  view(): AccessView;
}

/** `p`, or the signal's reason when it aborts first (its listener removed either way). */
function waitFor(p: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return p;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void p.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

export function createGate(): EndpointGate {
  let trusted = new Set<string>();
  const open = new Set<string>();
  const ok = new Set<string>();
  const refused = new Map<string, FleetsyncError>();
  const probing = new Map<string, { done: Promise<void>; release: () => void }>();
  const finish = (endpoint: string) => {
    const p = probing.get(endpoint);
    probing.delete(endpoint);
    p?.release();
  };
  return {
    async enter(endpoint, signal) {
      for (;;) {
        const r = refused.get(endpoint);
        if (r) throw r;
        if (trusted.has(endpoint) || open.has(endpoint)) return false;
        const p = probing.get(endpoint);
        if (!p) {
          let release!: () => void;
          const done = new Promise<void>((res) => (release = res));
          probing.set(endpoint, { done, release });
          return true;
        }
        await waitFor(p.done, signal?.());
      }
    },
    open(endpoint, isOk) {
      open.add(endpoint);
      if (isOk) ok.add(endpoint);
      finish(endpoint);
    },
    refuse(endpoint, e) {
      if (!refused.has(endpoint)) refused.set(endpoint, e);
      finish(endpoint);
    },
    leave(endpoint, probe) {
      if (probe) finish(endpoint);
    },
    reset(t) {
      trusted = new Set(t);
      open.clear();
      ok.clear();
      refused.clear();
      for (const e of [...probing.keys()]) finish(e);
    },
    view: () => ({ answered: [...ok], refused: [...refused.values()].map(refusalOf) }),
  };
}
