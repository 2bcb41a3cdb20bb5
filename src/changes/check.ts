/**
 * checkApiChanges: one look at the Fleet API's release notes. A conditional GET of records.json
 * (ETag / Last-Modified kept in api_feed_state); a 304 costs one request and stores nothing.
 * On a 200, releases not seen before are stored with their records (api_releases,
 * api_change_records) in one transaction, and each breaking or deprecation record whose
 * `endpoints` name an endpoint the sync uses is flagged (`affects_sync`).
 *
 * Never throws for a feed problem: a failing fetch or a bad file gives `{status: 'error', reason}`
 * (and records the reason in api_feed_state), so a sync that calls it cannot fail because of it.
 * The first check of a source stores the whole feed (20 releases) and flags from it as well.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Dispatcher } from 'undici';
import { describeError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { inTransaction, type Database } from '../store/db.ts';
import { execute, queryJs } from '../store/queries.ts';
import { SYNC_ENDPOINTS, syncEndpointsIn } from './endpoints.ts';
import { fetchRecords, type ChangeKind, type ChangeRecord, type Validators } from './feed.ts';
import { changelogUrlFor } from './url.ts';
import type { StoredFlag } from './stored-flag.ts';

export interface FlaggedChange {
  version: string;
  date: string;
  kind: ChangeKind;
  endpoints: string[];
  /** The sync endpoints the record names (SYNC_ENDPOINTS spelling). */
  syncEndpoints: string[];
  text: string;
}

export interface NewRelease {
  version: string;
  date: string;
  records: ChangeRecord[];
}

export type ChangeCheck =
  | { status: 'unchanged' | 'updated'; source: string; newReleases: NewRelease[]; flagged: FlaggedChange[] }
  | { status: 'error'; source: string; reason: string; newReleases: []; flagged: [] };

export interface CheckOptions {
  /** The open database, or a connection on it. */
  db: Database | DuckDBConnection;
  /** The API base URL (e.g. `http://127.0.0.1:4010/rest`); picks the feed when `feedUrl` is absent. */
  baseUrl: string;
  /** records.json URL; default `changelogUrlFor(baseUrl)`. */
  feedUrl?: string;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
  log: Logger;
  now: () => number;
  /** Endpoints to protect (default SYNC_ENDPOINTS). */
  syncEndpoints?: readonly string[];
}

/** A record is flagged when it is breaking or a deprecation and names an endpoint the sync uses. */
export function flagOf(r: ChangeRecord, used: readonly string[] = SYNC_ENDPOINTS): string[] {
  if (!(r.breaking || r.kind === 'breaking' || r.kind === 'deprecation')) return [];
  return syncEndpointsIn(r.endpoints, used);
}

const isDatabase = (x: Database | DuckDBConnection): x is Database => 'instance' in x;

async function withConnection<T>(db: Database | DuckDBConnection, fn: (con: DuckDBConnection) => Promise<T>) {
  if (!isDatabase(db)) return fn(db);
  const con = await db.connect();
  try {
    return await fn(con);
  } finally {
    con.closeSync();
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

export async function checkApiChanges(opts: CheckOptions): Promise<ChangeCheck> {
  const now = opts.now;
  let source: string;
  try {
    source = opts.feedUrl ?? changelogUrlFor(opts.baseUrl);
  } catch (e) {
    return {
      status: 'error',
      source: '',
      reason: `no release-notes URL: ${describeError(e)}`,
      newReleases: [],
      flagged: [],
    };
  }
  const used = opts.syncEndpoints ?? SYNC_ENDPOINTS;
  try {
    return await withConnection(opts.db, async (con) => {
      const state = (await queryJs(con, 'changes/feed_state', [source]))[0];
      const stored: Validators | null = state
        ? {
            etag: (state.etag as string | null) ?? null,
            lastModified: (state.last_modified as string | null) ?? null,
          }
        : null;
      let answer;
      try {
        answer = await fetchRecords(source, stored, {
          ...(opts.dispatcher ? { dispatcher: opts.dispatcher } : {}),
          ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
        });
      } catch (e) {
        const reason = describeError(e);
        opts.log.warn('release-notes check failed', { source, reason });
        await execute(con, 'changes/save_feed_state', [
          source,
          stored?.etag ?? null,
          stored?.lastModified ?? null,
          iso(now()),
          state?.changed_at instanceof Date ? iso(state.changed_at.getTime()) : null,
          'error',
          reason,
        ]);
        return { status: 'error', source, reason, newReleases: [], flagged: [] } as const;
      }
      if (answer.status === 'not_modified') {
        opts.log.debug('release notes unchanged (304)', { source });
        return { status: 'unchanged', source, newReleases: [], flagged: [] } as const;
      }
      const known = new Set(
        (await queryJs(con, 'changes/known_versions', [source])).map((r) => String(r.version)),
      );
      const byVersion = new Map<string, NewRelease>();
      for (const r of answer.records) {
        if (known.has(r.version)) continue;
        const rel = byVersion.get(r.version) ?? { version: r.version, date: r.date, records: [] };
        rel.records.push(r);
        byVersion.set(r.version, rel);
      }
      const newReleases = [...byVersion.values()];
      const flagged: FlaggedChange[] = [];
      const at = iso(now());
      await inTransaction(con, async () => {
        for (const rel of newReleases) {
          await execute(con, 'changes/insert_release', [
            source,
            rel.version,
            rel.date,
            rel.records.length,
            at,
          ]);
          for (const [seq, r] of rel.records.entries()) {
            const hits = flagOf(r, used);
            if (hits.length)
              flagged.push({
                version: r.version,
                date: r.date,
                kind: r.kind,
                endpoints: r.endpoints,
                syncEndpoints: hits,
                text: r.text,
              });
            await execute(con, 'changes/insert_record', [
              source,
              r.version,
              seq,
              r.date,
              r.kind,
              r.section,
              r.area,
              JSON.stringify(r.contract),
              JSON.stringify(r.endpoints),
              r.breaking,
              r.text,
              hits.length > 0,
              JSON.stringify(hits),
              at,
            ]);
          }
        }
        await execute(con, 'changes/save_feed_state', [
          source,
          answer.validators.etag,
          answer.validators.lastModified,
          at,
          newReleases.length
            ? at
            : state?.changed_at instanceof Date
              ? iso(state.changed_at.getTime())
              : null,
          newReleases.length ? 'updated' : 'unchanged',
          null,
        ]);
      });
      if (answer.skipped)
        opts.log.warn('release-notes records skipped (unexpected shape)', {
          source,
          skipped: answer.skipped,
        });
      for (const f of flagged)
        opts.log.warn('API change affects the sync', {
          version: f.version,
          kind: f.kind,
          endpoints: f.syncEndpoints.join(', '),
        });
      return { status: newReleases.length ? 'updated' : 'unchanged', source, newReleases, flagged } as const;
    });
  } catch (e) {
    const reason = describeError(e);
    opts.log.warn('release-notes check failed', { source, reason });
    return { status: 'error', source, reason, newReleases: [], flagged: [] };
  }
}

export type { StoredFlag };

/** Stored records that affect the sync, newest first (unacknowledged only unless `all`). For the dashboard banner. */
export async function listFlaggedChanges(
  con: DuckDBConnection,
  opts: { all?: boolean } = {},
): Promise<StoredFlag[]> {
  const rows = await queryJs(con, 'changes/flagged', [opts.all === true]);
  const list = (v: unknown): string[] => {
    try {
      const x: unknown = JSON.parse(String(v));
      return Array.isArray(x) ? x.map(String) : [];
    } catch {
      return []; // not JSON: treated as no endpoints
    }
  };
  return rows.map((r) => ({
    source: String(r.source),
    version: String(r.version),
    date: String(r.release_date),
    kind: String(r.kind),
    endpoints: list(r.endpoints),
    syncEndpoints: list(r.sync_endpoints),
    text: String(r.text),
    firstSeenAt: r.first_seen_at instanceof Date ? r.first_seen_at.toISOString() : String(r.first_seen_at),
    acknowledged: r.acknowledged_at !== null && r.acknowledged_at !== undefined,
  }));
}

/** Marks every flagged record as acknowledged (`fleetsync changes --ack`); returns how many were open. */
export async function acknowledgeFlaggedChanges(con: DuckDBConnection, nowMs: number): Promise<number> {
  const open = (await listFlaggedChanges(con)).length;
  await execute(con, 'changes/acknowledge', [iso(nowMs)]);
  return open;
}
