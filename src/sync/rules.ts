/**
 * The business rules the sync applies to an answer, asked of the SQL model layer so that each is
 * written once (queries/models/): whether an odometer window is flagged (odometer_reset,
 * terminal_has_changed) and whether a fuel counter went down. The answer is a reason code of the
 * one vocabulary (queries/models/reason_codes.sql), or null. The sync narrows a window with a code
 * to one local day and stores it with ledger status `flagged` and the code as the ledger's reason,
 * the same code the reports give the window.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { FuelConsumed, OdometerWindow } from '../api/types.ts';
import type { Database } from '../store/db.ts';
import { prepareModelConnection } from '../store/models.ts';
import { queryJs, type Params } from '../store/queries.ts';

export interface WindowRules {
  /** The reason code of a flagged odometer window (models/odometer_windows.sql), null when it counts. */
  odometerFlag(o: Pick<OdometerWindow, 'odometer_reset' | 'terminal_has_changed'>): Promise<string | null>;
  /** 'fuel_counter_went_down' when the counter went down inside the window (models/fuel_windows.sql), else null. */
  fuelCounterWentDown(f: Pick<FuelConsumed, 'counter_start_l' | 'counter_end_l'>): Promise<string | null>;
}

/**
 * The rules on a connection of their own (the model macros are defined on it once), asked one at
 * a time: units fetch concurrently, a DuckDB connection runs one statement at a time. `close`
 * ends the connection, if one was opened.
 */
export function modelRules(db: Pick<Database, 'connect'>): WindowRules & { close(): Promise<void> } {
  let con: Promise<DuckDBConnection> | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  const ask = (name: string, params: Params): Promise<string | null> => {
    const next = queue.then(async () => {
      con ??= db.connect().then(async (c) => {
        await prepareModelConnection(c);
        return c;
      });
      const [row] = await queryJs(await con, name, params);
      return row?.code == null ? null : String(row.code);
    });
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    odometerFlag: (o) => ask('sync/odometer_flag', [o.odometer_reset, o.terminal_has_changed]),
    fuelCounterWentDown: (f) => ask('sync/fuel_counter_went_down', [f.counter_start_l, f.counter_end_l]),
    async close() {
      const c = await con?.catch(() => null);
      c?.closeSync();
    },
  };
}
