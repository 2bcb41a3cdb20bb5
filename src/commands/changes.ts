/**
 * `fleetsync changes`: checks the Fleet API's release notes (conditional request; see
 * src/changes/check.ts), prints the releases not seen before and every breaking or deprecation
 * record that names an endpoint the sync uses. Exit 0 when nothing open affects the sync, 3 while
 * such a record is flagged and not acknowledged (`--ack` acknowledges them all). A feed that
 * cannot be read is reported on stderr with exit 1; it never touches synced data.
 */
import { acknowledgeFlaggedChanges, checkApiChanges, listFlaggedChanges } from '../changes/check.ts';
import { CHANGELOG_ENV, changelogUrlFor } from '../changes/url.ts';
import { loadConfig, secretsOf } from '../config.ts';
import { FleetsyncError } from '../errors.ts';
import { createLogger } from '../log.ts';
import { openDatabase } from '../store/db.ts';
import type { Command } from './command.ts';

export const CHANGES_AFFECT_SYNC_EXIT = 3;

export const changesCommand: Command = {
  summary: "Check the Fleet API's release notes; flag breaking changes to endpoints the sync uses.",
  usage: `fleetsync changes [--feed URL] [--ack]   (feed default: beside the base URL's /rest, or ${CHANGELOG_ENV})`,
  options: { feed: { type: 'string' }, ack: { type: 'boolean' } },
  async run({ values }, ctx) {
    const config = loadConfig(ctx.env);
    const feed = typeof values.feed === 'string' ? values.feed : undefined;
    if (!feed && !config.baseUrl && !config.changelogUrl)
      throw new FleetsyncError(
        'E_CONFIG',
        `set FLEET_COUNTRY or FLEET_BASE_URL, or ${CHANGELOG_ENV}, or pass --feed URL`,
      );
    const baseUrl = config.baseUrl ?? 'https://fleetapi-za.cartrack.com/rest';
    const feedUrl = feed ?? changelogUrlFor(baseUrl, config.changelogUrl);
    const log = createLogger({
      now: ctx.now,
      level: config.logLevel,
      format: config.logFormat,
      secrets: secretsOf(config),
      write: (line) => ctx.stderr(`${line}\n`),
    });
    const db = await openDatabase(config.dbPath, {
      whileServing:
        'For `fleetsync changes`: a running serve checks the release notes itself after each run; ' +
        'GET /api/changes lists its flagged changes (the dashboard shows them as a banner) and ' +
        'POST /api/changes/ack (with the header X-Fleetsync-Request: 1) acknowledges them, as --ack does.',
    });
    const con = await db.connect();
    try {
      const check = await checkApiChanges({ db: con, baseUrl, feedUrl, log, now: ctx.now });
      const out: string[] = [];
      if (check.status === 'error') {
        ctx.stderr(`release notes: ${check.reason}\n`);
      } else {
        out.push(`release notes ${check.source}: ${check.status}`);
        for (const r of check.newReleases) {
          out.push(`  new release v${r.version} (${r.date}), ${r.records.length} change(s)`);
          for (const x of r.records)
            out.push(
              `    - [${x.kind}] ${x.text}${x.endpoints.length ? ` (${x.endpoints.join(', ')})` : ''}`,
            );
        }
      }
      if (values.ack === true) {
        const n = await acknowledgeFlaggedChanges(con, ctx.now());
        out.push(`acknowledged ${n} flagged change(s)`);
      }
      const open = await listFlaggedChanges(con);
      if (open.length) {
        out.push('', 'changes that affect the sync (breaking or deprecation):');
        for (const f of open)
          out.push(`  ! v${f.version} ${f.date} [${f.kind}] ${f.syncEndpoints.join(', ')}: ${f.text}`);
        out.push('', 'review them, then run `fleetsync changes --ack`');
      } else out.push('no open change affects the sync');
      ctx.stdout(`${out.join('\n')}\n`);
      if (open.length) return CHANGES_AFFECT_SYNC_EXIT;
      return check.status === 'error' ? 1 : 0;
    } finally {
      con.closeSync();
      db.close();
    }
  },
};
