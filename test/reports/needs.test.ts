/**
 * The streams each report reads (src/reports/needs.ts) name real reports and real streams, and
 * every report whose SQL reads a stream's tables declares that stream — so a report built on an
 * endpoint the account may not read always says "not available" instead of showing zeros.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPORT_STREAMS } from '../../src/reports/needs.ts';
import { REPORT_NAMES } from '../../src/reports/registry.ts';
import { BUILTIN_STREAMS } from '../../src/sync/streams/index.ts';

/** The refusable streams whose tables are read by name only from reports (and their models). */
const TABLES: Record<string, RegExp> = {
  activity: /\b(vehicle_activity|activity_days)\b/,
  drivers: /\bFROM drivers\b|\bdriver_names\(/,
  trips: /\bFROM trips\b/,
  bookings: /\bcarpool_bookings\b/,
};

describe('what each report reads', () => {
  it('names reports and streams that exist', () => {
    const streams = new Set<string>(BUILTIN_STREAMS.map((d) => d.name));
    for (const [report, needs] of Object.entries(REPORT_STREAMS)) {
      expect(REPORT_NAMES, report).toContain(report);
      for (const s of needs) expect(streams.has(s), `${report}: ${s}`).toBe(true);
    }
  });

  it('a report whose SQL reads a stream’s table declares that stream', () => {
    for (const report of REPORT_NAMES) {
      let sql: string;
      try {
        sql = readFileSync(new URL(`../../queries/reports/${report}.sql`, import.meta.url), 'utf8');
      } catch {
        continue; // a report computed otherwise
      }
      for (const [stream, re] of Object.entries(TABLES))
        if (re.test(sql)) expect(REPORT_STREAMS[report] ?? [], `${report} reads ${stream}`).toContain(stream);
    }
  });
});
