/**
 * The streams each report reads (src/reports/needs.ts) name real reports and real streams, and
 * every report whose SQL reads a stream's tables declares that stream — so a report built on an
 * endpoint the account may not read always says "not available" instead of showing zeros.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REPORT_STREAMS, unavailableFor } from '../../src/reports/needs.ts';
import { REPORT_NAMES } from '../../src/reports/registry.ts';
import { BUILTIN_STREAMS } from '../../src/sync/streams/index.ts';
import { ACCOUNT, openFixture, ZONE } from '../helpers/report-fixture.ts';

/** The refusable streams whose tables are read by name only from reports (and their models). */
const TABLES: Record<string, RegExp> = {
  activity: /\b(vehicle_activity|activity_days)\b/,
  // the trips report's names come from driver_names through its lookups (lookups/trip_lookups.sql)
  drivers: /\bFROM drivers\b|\bdriver_names\(|getvariable\('trip_lookups'\)\.driver_name\b/,
  // the models that read the trips for a report: logbook.sql, driver_scores.sql, fuel_efficiency.sql;
  // the daily facts and day's coverage of the trips stream (daily_facts.sql, coverage.sql)
  trips:
    /\bFROM trips\b|\blogbook_trips\(|\bdriver_months\(|\bfuel_efficiency_trips\(|WHERE stream = 'trips'|\$now, 'trips'\)/,
  bookings: /\bcarpool_bookings\b/,
  'GET /carpool/vehicles': /\bcarpool_vehicles\b/,
  'GET /carpool/drivers': /\bcarpool_drivers\b/,
};
/** Streams whose endpoints are declared one by one (a report needs only the part it reads). */
const BY_ENDPOINT = new Set(['carpool']);

function sqlOf(report: string): string | null {
  try {
    return readFileSync(new URL(`../../queries/reports/${report}.sql`, import.meta.url), 'utf8');
  } catch {
    return null; // a report computed otherwise
  }
}

describe('what each report reads', () => {
  it('names reports and streams that exist', () => {
    const streams = new Set<string>(
      BUILTIN_STREAMS.filter((d) => !BY_ENDPOINT.has(d.name)).map((d) => d.name),
    );
    const endpoints = new Set(
      BUILTIN_STREAMS.filter((d) => BY_ENDPOINT.has(d.name)).flatMap((d) => d.endpoints),
    );
    for (const [report, needs] of Object.entries(REPORT_STREAMS)) {
      expect(REPORT_NAMES, report).toContain(report);
      for (const s of needs) expect(streams.has(s) || endpoints.has(s), `${report}: ${s}`).toBe(true);
    }
  });

  it('a report whose SQL reads a stream’s table declares that stream', () => {
    for (const report of REPORT_NAMES) {
      const sql = sqlOf(report);
      if (sql === null) continue;
      for (const [stream, re] of Object.entries(TABLES))
        if (re.test(sql)) expect(REPORT_STREAMS[report] ?? [], `${report} reads ${stream}`).toContain(stream);
    }
  });

  it('a report declares a stream or endpoint only when its SQL reads its table (no "not available" on a whole figure)', () => {
    for (const [report, needs] of Object.entries(REPORT_STREAMS)) {
      const sql = sqlOf(report);
      if (sql === null) continue;
      for (const s of needs) if (TABLES[s]) expect(TABLES[s].test(sql), `${report} declares ${s}`).toBe(true);
    }
  });
});

describe('a refused carpool vehicle list', () => {
  it('marks only the reports that read the carpool vehicles, not those built on bookings', async () => {
    const fx = await openFixture();
    try {
      await fx.con.run(
        `INSERT INTO endpoint_access (account, endpoint, state, since, last_probed, last_status, message, streams, ledger_streams)
         VALUES ($1, 'GET /carpool/vehicles', 'not_permitted', now(), now(), 403, 'x', 'carpool', '')`,
        [ACCOUNT],
      );
      const refused = async (report: string) =>
        (await unavailableFor(fx.con, ACCOUNT, report, ZONE)).map((e) => e.endpoint);
      for (const report of ['kpis', 'trend', 'carpool_status', 'drivers', 'carpool'])
        expect(await refused(report), report).toEqual([]);
      for (const report of ['carpool_departments', 'setup_health', 'vehicles'])
        expect(await refused(report), report).toEqual(['GET /carpool/vehicles']);
    } finally {
      fx.close();
    }
  });
});
