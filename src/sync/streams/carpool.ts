/** Carpool vehicles and drivers, a snapshot pulled whole on every run that needs it (upserted, never deleted). */
import { inTransaction } from '../../store/db.ts';
import { upsertRows } from '../../store/write.ts';
import { defineStream } from '../stream.ts';

export const carpool = defineStream({
  name: 'carpool',
  ledgerStreams: [],
  grid: 'none',
  scope: 'fleet',
  endpoints: ['GET /carpool/vehicles', 'GET /carpool/drivers'],
  buckets: ['default'],
  tables: ['carpool_vehicles', 'carpool_drivers'],
  startOrder: 5,
  snapshot: {
    estRequests: 2,
    async pull({ client, con, account, nowMs, meter, signal }) {
      const [vehicles, drivers] = await Promise.all([
        client.listCarpoolVehicles({ meter, signal }),
        client.listCarpoolDrivers({ meter, signal }),
      ]);
      return inTransaction(con, async () => {
        const a = await upsertRows(
          con,
          'carpool_vehicles',
          ['account', 'vehicle_id'],
          vehicles.map((v) => ({ account, ...v, synced_at: nowMs })),
        );
        const b = await upsertRows(
          con,
          'carpool_drivers',
          ['account', 'driver_id'],
          drivers.map((d) => ({
            account,
            ...d,
            license_type_ids: JSON.stringify(d.license_type_ids),
            special_licenses: JSON.stringify(d.special_licenses),
            synced_at: nowMs,
          })),
        );
        return a + b;
      });
    },
  },
});
