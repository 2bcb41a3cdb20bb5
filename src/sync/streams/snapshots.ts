/**
 * Snapshot streams, pulled whole on every run: vehicles (with sensors), geofences, carpool
 * vehicles and drivers. Upserted, never deleted: a vehicle that leaves the account keeps its
 * last known row, so its history still has a registration.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { FleetClient, RequestMeter } from '../../api/client.ts';
import type { Vehicle } from '../../api/types.ts';
import { inTransaction } from '../../store/db.ts';
import { upsertRows } from '../../store/write.ts';

export async function syncVehicles(
  client: FleetClient,
  con: DuckDBConnection,
  account: string,
  nowMs: number,
  meter: RequestMeter,
  signal?: AbortSignal,
): Promise<Vehicle[]> {
  const vehicles = await client.listVehicles({ meter, signal });
  await inTransaction(con, () =>
    upsertRows(
      con,
      'vehicles',
      ['account', 'vehicle_id'],
      vehicles.map((v) => ({
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
        synced_at: nowMs,
      })),
    ),
  );
  return vehicles;
}

export async function syncGeofences(
  client: FleetClient,
  con: DuckDBConnection,
  account: string,
  nowMs: number,
  meter: RequestMeter,
  signal?: AbortSignal,
): Promise<number> {
  const list = await client.listGeofences({ meter, signal });
  return inTransaction(con, () =>
    upsertRows(
      con,
      'geofences',
      ['account', 'geofence_id'],
      list.map((g) => ({ account, ...g, synced_at: nowMs })),
    ),
  );
}

export async function syncCarpool(
  client: FleetClient,
  con: DuckDBConnection,
  account: string,
  nowMs: number,
  meter: RequestMeter,
  signal?: AbortSignal,
): Promise<number> {
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
}
