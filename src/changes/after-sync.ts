/**
 * The release-notes check beside the sync: after a run (from `sync`, the scheduler in `serve`,
 * and `demo`), one conditional look at the API's release notes. Its result goes into the run
 * summary (`apiChanges`) and the run's row (`runs.notes`). Skipped when the run was stopped or
 * failed as a whole, or when the account turns it off (`changelogUrl: false`). Never fails a run.
 */
import { recordRunNotes } from '../sync/run-log.ts';
import { BUILTIN_STREAMS, endpointsOf } from '../sync/streams/index.ts';
import type { RunSummary, SyncDeps } from '../sync/types.ts';
import { checkApiChanges } from './check.ts';

export async function checkApiChangesAfterSync(deps: SyncDeps, summary: RunSummary): Promise<RunSummary> {
  if (deps.changelogUrl === false || deps.signal?.aborted || summary.outcome === 'failed') return summary;
  const log = deps.log.child({ account: deps.account });
  const con = await deps.db.connect();
  try {
    const check = await checkApiChanges({
      db: con,
      baseUrl: deps.baseUrl,
      ...(deps.changelogUrl ? { feedUrl: deps.changelogUrl } : {}),
      log,
      now: deps.now,
      syncEndpoints: endpointsOf(deps.streams ?? BUILTIN_STREAMS),
    });
    summary.apiChanges = {
      status: check.status,
      newReleases: check.newReleases.length,
      flagged: check.flagged.map((f) => ({
        version: f.version,
        kind: f.kind,
        endpoints: f.syncEndpoints,
        text: f.text,
      })),
    };
    if (check.flagged.length)
      log.warn('API release notes flag a change to an endpoint the sync uses', {
        releases: [...new Set(check.flagged.map((f) => f.version))].join(','),
        endpoints: [...new Set(check.flagged.flatMap((f) => f.syncEndpoints))].join(','),
      });
    await recordRunNotes(con, summary);
  } finally {
    con.closeSync();
  }
  return summary;
}
