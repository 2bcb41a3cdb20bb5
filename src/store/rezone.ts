/**
 * The swap step of a re-zone (src/sync/rezone.ts): the account's windows pulled again under the new
 * zone into a staging file replace the stored ones, in ONE transaction for every stream together
 * with the recorded zone, so no reader ever sees a total counted in both zones (or one stream in
 * the old zone beside another in the new). Window tables are replaced whole; bookings (keyed by id,
 * with a status history) are merged: newer statuses are added, when each was first seen is kept.
 */
import { listValue, type DuckDBConnection } from '@duckdb/node-api';
import { FleetsyncError } from '../errors.ts';
import { inTransaction } from './db.ts';
import { rebuildFacts } from './facts.ts';

/** Tables whose rows are merged by key instead of replaced (their history must not be lost). */
const MERGED = new Set(['carpool_bookings', 'carpool_booking_history']);
const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`;
const count = async (con: DuckDBConnection, sql: string, account: string) =>
  Number((await con.runAndReadAll(sql, [account])).getRows()[0]?.[0] ?? 0);

export interface SwapInput {
  /** The staging DuckDB file (closed by its writer): a generated name beside the database. */
  stagingPath: string;
  account: string;
  zone: string;
  /** The stream tables (code constants from the stream registry). */
  tables: readonly string[];
  /** Ledger streams whose windows are replaced. */
  ledgerStreams: readonly string[];
}

/** Replaces the account's windows and rows with the staging file's; returns rows per table before/after. */
export async function swapInRezoned(
  con: DuckDBConnection,
  x: SwapInput,
): Promise<Record<string, { before: number; after: number }>> {
  for (const t of x.tables)
    if (!/^[a-z_]{1,40}$/.test(t)) throw new FleetsyncError('E_DB', `not a table name: ${JSON.stringify(t)}`);
  await con.run(`ATTACH ${sqlString(x.stagingPath)} AS rezone (READ_ONLY)`);
  try {
    return await inTransaction(con, async () => {
      const out: Record<string, { before: number; after: number }> = {};
      for (const table of x.tables) {
        const before = await count(con, `SELECT count(*) FROM ${table} WHERE account = $1`, x.account);
        if (table === 'carpool_bookings') {
          await con.run(
            `INSERT OR REPLACE INTO ${table}
             SELECT s.* REPLACE (coalesce(least(m.first_seen_at, s.first_seen_at), s.first_seen_at) AS first_seen_at)
             FROM rezone.${table} AS s LEFT JOIN ${table} AS m ON m.account = s.account AND m.booking_id = s.booking_id
             WHERE s.account = $1`,
            [x.account],
          );
        } else if (table === 'carpool_booking_history') {
          // Every status observed stays; a status the staging run saw that is not stored yet is added.
          await con.run(
            `INSERT OR IGNORE INTO ${table}
             SELECT s.* FROM rezone.${table} AS s
             WHERE s.account = $1 AND NOT EXISTS (
               SELECT 1 FROM ${table} AS h WHERE h.account = s.account AND h.booking_id = s.booking_id
                 AND h.booking_status = s.booking_status AND h.is_approved = s.is_approved)`,
            [x.account],
          );
        } else if (!MERGED.has(table)) {
          await con.run(`DELETE FROM ${table} WHERE account = $1`, [x.account]);
          await con.run(`INSERT INTO ${table} SELECT * FROM rezone.${table} WHERE account = $1`, [x.account]);
        }
        out[table] = {
          before,
          after: await count(con, `SELECT count(*) FROM ${table} WHERE account = $1`, x.account),
        };
      }
      const streams = listValue([...x.ledgerStreams]);
      await con.run('DELETE FROM ledger WHERE account = $1 AND list_contains($2::VARCHAR[], stream)', [
        x.account,
        streams,
      ]);
      await con.run(
        'INSERT INTO ledger SELECT * FROM rezone.ledger WHERE account = $1 AND list_contains($2::VARCHAR[], stream)',
        [x.account, streams],
      );
      // The staging run(s) appear in the account's run log, said to be the re-zone.
      await con.run(
        `INSERT OR IGNORE INTO runs
         SELECT * REPLACE (concat_ws('; ', notes, 're-zone to ' || $2) AS notes) FROM rezone.runs WHERE account = $1`,
        [x.account, x.zone],
      );
      await con.run('UPDATE accounts SET timezone = $2, updated_at = now() WHERE account = $1', [
        x.account,
        x.zone,
      ]);
      // The daily facts in the new zone: its local days are other days.
      await rebuildFacts(con, x.account, x.zone);
      return out;
    });
  } finally {
    await con.run('DETACH rezone');
  }
}
