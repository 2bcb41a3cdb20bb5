/**
 * A canonical dump of everything a sync stores, minus the bookkeeping that legitimately differs
 * between two runs (run ids, fetch and sync times). Two databases holding the same data give
 * equal dumps; a duplicated row (history included) makes them differ.
 */
import { openDatabase } from '../../src/store/db.ts';

const TABLES: Record<string, string> = {
  vehicles: 'SELECT * EXCLUDE (synced_at) FROM vehicles ORDER BY ALL',
  geofences: 'SELECT * EXCLUDE (synced_at) FROM geofences ORDER BY ALL',
  carpool_vehicles: 'SELECT * EXCLUDE (synced_at) FROM carpool_vehicles ORDER BY ALL',
  carpool_drivers: 'SELECT * EXCLUDE (synced_at) FROM carpool_drivers ORDER BY ALL',
  trips: 'SELECT * FROM trips ORDER BY ALL',
  odometer_windows: 'SELECT * FROM odometer_windows ORDER BY ALL',
  fuel_consumed: 'SELECT * FROM fuel_consumed ORDER BY ALL',
  fuel_level: 'SELECT * FROM fuel_level ORDER BY ALL',
  fuel_fills: 'SELECT * FROM fuel_fills ORDER BY ALL',
  geofence_visits: 'SELECT * FROM geofence_visits ORDER BY ALL',
  carpool_bookings: 'SELECT * EXCLUDE (first_seen_at, last_seen_at) FROM carpool_bookings ORDER BY ALL',
  // Each booking's observed statuses in the order seen (times differ between runs; the sequence
  // must not): a status recorded twice in a row shows as a repeat, never folded away.
  carpool_booking_history:
    "SELECT account, booking_id, string_agg(booking_status || CASE WHEN is_approved THEN '+' ELSE '' END, ' > ' ORDER BY seen_at) AS seen, count(*) AS n FROM carpool_booking_history GROUP BY account, booking_id ORDER BY ALL",
  ledger: 'SELECT * EXCLUDE (fetched_at, run_id, requests) FROM ledger ORDER BY ALL',
};

export async function dumpDatabase(path: string): Promise<Record<string, string>> {
  const db = await openDatabase(path);
  const con = await db.connect();
  try {
    const out: Record<string, string> = {};
    for (const [name, sql] of Object.entries(TABLES))
      out[name] = JSON.stringify((await con.runAndReadAll(sql)).getRowObjectsJson());
    return out;
  } finally {
    con.closeSync();
    db.close();
  }
}

/** Rows present in one dump's table and not the other's (for a readable failure). */
export function diffTable(
  a: string | undefined,
  b: string | undefined,
): { onlyA: unknown[]; onlyB: unknown[] } {
  const ra = (JSON.parse(a ?? '[]') as unknown[]).map((r) => JSON.stringify(r));
  const rb = (JSON.parse(b ?? '[]') as unknown[]).map((r) => JSON.stringify(r));
  const sb = new Set(rb);
  const sa = new Set(ra);
  return {
    onlyA: ra
      .filter((r) => !sb.has(r))
      .slice(0, 5)
      .map((r) => JSON.parse(r) as unknown),
    onlyB: rb
      .filter((r) => !sa.has(r))
      .slice(0, 5)
      .map((r) => JSON.parse(r) as unknown),
  };
}
