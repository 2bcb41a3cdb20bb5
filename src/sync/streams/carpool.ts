/**
 * Carpool vehicles and drivers, a snapshot pulled whole on every run that needs it (upserted, never
 * deleted). The two lists are separate endpoints: when one is refused (api/access.ts) the other is
 * still stored, then the refusal is thrown so the stream is recorded as skipped for that endpoint.
 */
import { isAccessRefusal } from '../../api/access.ts';
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
      const [vehicles, drivers] = await Promise.allSettled([
        client.listCarpoolVehicles({ meter, signal }),
        client.listCarpoolDrivers({ meter, signal }),
      ]);
      const failures = [vehicles, drivers].flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
      // Anything but a refusal fails the snapshot as before; a refusal stores what was readable.
      const other = failures.find((e) => !isAccessRefusal(e));
      if (other !== undefined) throw other;
      let rows = 0;
      await inTransaction(con, async () => {
        if (vehicles.status === 'fulfilled')
          rows += await upsertRows(
            con,
            'carpool_vehicles',
            ['account', 'vehicle_id'],
            vehicles.value.map((v) => ({ account, ...v, synced_at: nowMs })),
          );
        if (drivers.status === 'fulfilled')
          rows += await upsertRows(
            con,
            'carpool_drivers',
            ['account', 'driver_id'],
            drivers.value.map((d) => ({
              account,
              ...d,
              license_type_ids: JSON.stringify(d.license_type_ids),
              special_licenses: JSON.stringify(d.special_licenses),
              synced_at: nowMs,
            })),
          );
      });
      if (failures.length) throw failures[0];
      return rows;
    },
  },
});
