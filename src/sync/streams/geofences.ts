/** Geofences, a snapshot pulled whole on every run that needs it (upserted, never deleted). */
import { inTransaction } from '../../store/db.ts';
import { keepingTollFacts } from '../../store/facts.ts';
import { upsertRows } from '../../store/write.ts';
import { defineStream } from '../stream.ts';

export const geofences = defineStream({
  name: 'geofences',
  ledgerStreams: [],
  grid: 'none',
  scope: 'fleet',
  endpoints: ['GET /geofences'],
  buckets: ['default'],
  tables: ['geofences'],
  startOrder: 5,
  snapshot: {
    estRequests: 1,
    async pull({ client, con, account, nowMs, meter, signal }) {
      const list = await client.listGeofences({ meter, signal });
      return inTransaction(con, () =>
        keepingTollFacts(con, account, () =>
          upsertRows(
            con,
            'geofences',
            ['account', 'geofence_id'],
            list.map((g) => ({ account, ...g, synced_at: nowMs })),
          ),
        ),
      );
    },
  },
});
