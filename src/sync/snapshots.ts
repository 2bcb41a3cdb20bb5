/**
 * The snapshot stage: before the plan, every snapshot stream asked for — or needed by a stream
 * asked for (the per-vehicle streams need the vehicle list) — is pulled whole, in registry order.
 * A failed snapshot is counted and the run goes on with what is stored, unless the failure
 * stops the run (refused credentials, the breaker, the storage: executor.stopsTheRun). A snapshot
 * whose endpoint is not permitted or not available is skipped (sync/access.ts), not failed.
 * A stop (SIGTERM, Ctrl-C: the run's signal) ends the stage where it is, failing nothing: the run
 * is interrupted (run.ts), not a snapshot's failure (session 14, `wrk2`).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { FleetClient } from '../api/client.ts';
import { isAccessRefusal } from '../api/access.ts';
import { isAbort } from '../api/http.ts';
import { isZoneMismatch } from '../api/wire.ts';
import type { Logger } from '../log.ts';
import type { Clock } from '../time.ts';
import { stopsTheRun } from './executor.ts';
import { newMeter, type RunLog } from './run-log.ts';
import type { StreamDefinition } from './stream.ts';

/** The snapshot streams a run pulls for `streams`. */
export function snapshotsFor(
  defs: readonly StreamDefinition[],
  streams: ReadonlySet<string>,
): StreamDefinition[] {
  const needed = new Set(
    defs.filter((d) => streams.has(d.name)).flatMap((d) => [d.name, ...(d.needs ?? [])]),
  );
  return defs.filter((d) => d.snapshot && needed.has(d.name));
}

export async function pullSnapshots(
  con: DuckDBConnection,
  x: { client: FleetClient; account: string; now: Clock; log: Logger; signal?: AbortSignal },
  defs: readonly StreamDefinition[],
  streams: ReadonlySet<string>,
  run: RunLog,
): Promise<void> {
  for (const def of snapshotsFor(defs, streams)) {
    if (x.signal?.aborted) return;
    const meter = newMeter();
    const t0 = Date.now();
    try {
      const rows = await def.snapshot!.pull({
        client: x.client,
        con,
        account: x.account,
        nowMs: x.now(),
        meter,
        signal: x.signal,
      });
      run.count(def.name, 'done', rows, meter.requests);
      x.log.info('snapshot', { stream: def.name, rows, requests: meter.requests, ms: Date.now() - t0 });
    } catch (e) {
      if (stopsTheRun(e)) throw e;
      if (isAbort(e, x.signal)) {
        run.count(def.name, null, 0, meter.requests); // its request on the wire was sent
        return;
      }
      if (isAccessRefusal(e)) {
        // Not permitted or not available: a fact about the account, not a failure (access.ts).
        run.skip(def.name, e);
        run.count(def.name, null, 0, meter.requests);
        continue;
      }
      run.count(def.name, 'failed', 0, meter.requests);
      run.fail(def.name, '*', 'snapshot', e);
      if (isZoneMismatch(e)) throw e; // the API answers in another zone: the run stops
    } finally {
      run.meter(meter);
    }
  }
}
