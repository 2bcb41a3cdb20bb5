/** Fleet drivers (GET /drivers: names, status, groups), a snapshot pulled whole on every run that needs it (upserted, never deleted). */
import { inTransaction } from '../../store/db.ts';
import { upsertRows } from '../../store/write.ts';
import { defineStream } from '../stream.ts';

export const drivers = defineStream({
  name: 'drivers',
  ledgerStreams: [],
  grid: 'none',
  scope: 'fleet',
  endpoints: ['GET /drivers'],
  buckets: ['default'],
  tables: ['drivers'],
  startOrder: 5,
  snapshot: {
    estRequests: 1,
    async pull({ client, con, account, nowMs, meter, signal }) {
      const list = await client.listDrivers({ meter, signal });
      return inTransaction(con, () =>
        upsertRows(
          con,
          'drivers',
          ['account', 'driver_id'],
          list.map((d) => ({ account, ...d, groups: JSON.stringify(d.groups), synced_at: nowMs })),
        ),
      );
    },
  },
});
