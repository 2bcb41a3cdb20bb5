/**
 * Vehicles (with their sensors), a snapshot pulled whole on every run that needs it: the
 * per-vehicle streams plan from it. Upserted, never deleted: a vehicle that leaves the account
 * keeps its last known row, so its history still has a registration.
 */
import { inTransaction } from '../../store/db.ts';
import { upsertRows } from '../../store/write.ts';
import { defineStream } from '../stream.ts';

export const vehicles = defineStream({
  name: 'vehicles',
  ledgerStreams: [],
  grid: 'none',
  scope: 'fleet',
  endpoints: ['GET /vehicles'],
  buckets: ['default'],
  tables: ['vehicles'],
  startOrder: 5,
  snapshot: {
    estRequests: 1,
    async pull({ client, con, account, nowMs, meter, signal }) {
      const list = await client.listVehicles({ meter, signal });
      await inTransaction(con, () =>
        upsertRows(
          con,
          'vehicles',
          ['account', 'vehicle_id'],
          list.map((v) => ({
            account,
            vehicle_id: v.vehicle_id,
            registration: v.registration,
            vehicle_name: v.vehicle_name,
            description: v.description,
            manufacturer: v.manufacturer,
            model: v.model,
            model_year: v.model_year,
            chassis_number: v.chassis_number,
            terminal_serial: v.terminal_serial,
            ...v.sensors,
            fuel_type: v.fuel_type,
            vehicle_class: v.vehicle_class,
            extra_fields: v.extra_fields,
            synced_at: nowMs,
          })),
        ),
      );
      return list.length;
    },
  },
});
