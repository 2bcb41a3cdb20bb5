/**
 * Whether a report's period is complete, by the exports' own rule (the honesty issue): "complete
 * through" covers the period's last day, and every row of a report with a `coverage` column says
 * `coverage = complete` (queries/models/coverage.sql: every ended vehicle-day of its grain settled
 * for the stream the figure uses). Used by the month-end pack and by subscriptions; `reason` says
 * in words why a period is not complete, for the mail.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ReportParams } from './params.ts';
import type { ReportDef } from './registry.ts';
import { reportMeta, runReport, type ReportMeta, type ReportScope } from './run.ts';

export interface Completeness {
  meta: ReportMeta;
  complete: boolean;
  /** Why not complete, in words; null when complete. */
  reason: string | null;
}

const pct = (share: number) =>
  `${(share * 100).toLocaleString('en-GB', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} %`;

/**
 * `defs`: the reports whose rows are read for coverage (those without a `coverage` column are not
 * read). `what`: the period in words ('month', 'period'). A report with one row per vehicle (its
 * grain begins with "vehicle") and no row at all knows no vehicle: nothing of the period is synced.
 * The share given is the mean of the rows' `covered_share` (every row of a period has the same
 * number of days).
 */
export async function periodCompleteness(
  con: DuckDBConnection,
  scope: ReportScope,
  defs: readonly ReportDef[],
  params: ReportParams,
  what: string,
): Promise<Completeness> {
  const meta = await reportMeta(con, scope);
  const reasons: string[] = [];
  if (meta.complete_through_day === null || meta.complete_through_day < params.toDay)
    reasons.push(
      `the data is ${meta.complete_through_text}; the ${what} ends ${params.toDay}, so later days may still change`,
    );
  for (const def of defs) {
    if (!def.columns.some((c) => c.name === 'coverage')) continue;
    const { rows } = await runReport(con, def, scope, params);
    const short = rows.filter((r) => r.coverage !== 'complete').length;
    if (rows.length === 0) {
      if (/^vehicle\b/.test(def.grain))
        reasons.push(`${def.title}: no vehicle is known, so nothing of the ${what} is synced`);
    } else if (short > 0) {
      const share = rows.reduce((s, r) => s + (typeof r.covered_share === 'number' ? r.covered_share : 0), 0);
      reasons.push(
        `${def.title}: ${pct(share / rows.length)} of the ${what}'s vehicle-days synced (${short} of ${rows.length} rows partial or not synced)`,
      );
    }
  }
  return { meta, complete: reasons.length === 0, reason: reasons.length ? reasons.join('; ') : null };
}
