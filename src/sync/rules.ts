/**
 * The business rules the sync applies to an answer, asked of the SQL model layer so that each is
 * written once (queries/models/): whether an odometer window is flagged (odometer_reset,
 * terminal_has_changed) and whether a fuel counter went down. The answer is a reason code of the
 * one vocabulary (queries/models/reason_codes.sql), or null. The sync narrows a window with a code
 * to one local day and stores it with ledger status `flagged` and the code as the ledger's reason,
 * the same code the reports give the window.
 */
import { BOOLEAN, DOUBLE, LIST, listValue, type DuckDBConnection, type DuckDBType } from '@duckdb/node-api';
import type { FuelConsumed, OdometerWindow } from '../api/types.ts';
import type { Database } from '../store/db.ts';
import { prepareModelConnection } from '../store/models.ts';
import { queryJs } from '../store/queries.ts';

type Cell = number | boolean | null;
const FLAGS = [LIST(BOOLEAN), LIST(BOOLEAN)];
const COUNTERS = [LIST(DOUBLE), LIST(DOUBLE)];

export interface WindowRules {
  /** The reason code of a flagged odometer window (models/odometer_windows.sql), null when it counts. */
  odometerFlag(o: Pick<OdometerWindow, 'odometer_reset' | 'terminal_has_changed'>): Promise<string | null>;
  /** 'fuel_counter_went_down' when the counter went down inside the window (models/fuel_windows.sql), else null. */
  fuelCounterWentDown(f: Pick<FuelConsumed, 'counter_start_l' | 'counter_end_l'>): Promise<string | null>;
}

/**
 * The rules on a connection of their own (the model macros are defined on it once), one statement
 * at a time (units fetch concurrently, a DuckDB connection runs one statement at a time), and
 * many answers per statement: the answers asked while one statement runs wait for the next, which
 * takes them all as lists (one statement per answer cost more CPU than the request that brought
 * it). `close` ends the connection, if one was opened.
 */
export function modelRules(db: Pick<Database, 'connect'>): WindowRules & { close(): Promise<void> } {
  let con: Promise<DuckDBConnection> | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  type Asked = { params: Cell[]; resolve: (code: string | null) => void; reject: (e: unknown) => void };
  const waiting = new Map<string, Asked[]>();

  async function answer(name: string, types: DuckDBType[]): Promise<void> {
    const asked = waiting.get(name)!;
    waiting.delete(name);
    try {
      con ??= db.connect().then(async (c) => {
        await prepareModelConnection(c, ['sync/odometer_flag', 'sync/fuel_counter_went_down']);
        return c;
      });
      const lists = asked[0]!.params.map((_, j) => listValue(asked.map((a) => a.params[j]!)));
      const rows = await queryJs(await con, name, lists, types);
      if (rows.length !== asked.length)
        throw new Error(`${name}: ${rows.length} answers for ${asked.length} questions`);
      asked.forEach((a, i) => a.resolve(rows[i]!.code == null ? null : String(rows[i]!.code)));
    } catch (e) {
      for (const a of asked) a.reject(e);
    }
  }

  const ask = (name: string, types: DuckDBType[], params: Cell[]): Promise<string | null> =>
    new Promise((resolve, reject) => {
      let asked = waiting.get(name);
      if (!asked) {
        waiting.set(name, (asked = []));
        queue = queue.then(() => answer(name, types));
      }
      asked.push({ params, resolve, reject });
    });
  return {
    odometerFlag: (o) => ask('sync/odometer_flag', FLAGS, [o.odometer_reset, o.terminal_has_changed]),
    fuelCounterWentDown: (f) =>
      ask('sync/fuel_counter_went_down', COUNTERS, [f.counter_start_l, f.counter_end_l]),
    async close() {
      const c = await con?.catch(() => null);
      c?.closeSync();
    },
  };
}
