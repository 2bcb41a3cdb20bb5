/**
 * What the API adds after a version shipped is kept, not fatal (issue 23), parsed over HTTP: an
 * enum value the code does not know is kept exactly as sent and flagged, a known one in another
 * case or without its prefix is the known value; the keys no field maps land in `extra_fields`
 * (only those keys); both timestamp styles of the real API give the same record; a record missing
 * a field the rules need still fails with E_PAYLOAD naming it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FleetClient } from '../../src/api/client.ts';
import { FleetsyncError } from '../../src/errors.ts';
import { localDayBounds } from '../../src/time.ts';
import { json, list, scriptedClient, type ScriptedClient } from '../helpers/api.ts';

const ZONE = 'Australia/Sydney';
const day = localDayBounds('2026-03-01', ZONE);

let open: ScriptedClient | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

/** The real client against a server answering `bodies[i]` to the i-th request. */
async function serve(...bodies: unknown[]): Promise<FleetClient> {
  open = await scriptedClient((_r, res, n) => json(res, 200, bodies[n - 1] ?? { data: [] }), {
    timezone: ZONE,
  });
  return open.client;
}

const booking = (status: string, extra: Record<string, unknown> = {}) => ({
  booking_id: 5,
  vehicle_id: 17,
  registration: 'ab 1',
  driver_id: 'd-1',
  department: null,
  booking_status: status,
  is_approved: true,
  approved_by: null,
  declined_by: null,
  start_ts: '2026-03-01 08:15:00+11',
  end_ts: '2026-03-01 10:00:00+11',
  picked_up_at: null,
  returned_at: null,
  created_ts: '2026-02-27 08:00:00+11',
  updated_ts: '2026-03-01 08:00:00+11',
  ...extra,
});

const trip = {
  trip_id: 'T1',
  vehicle_id: 17,
  registration: 'ab 1',
  start_timestamp: '2026-03-01 08:15:00+11',
  end_timestamp: '2026-03-01 08:45:30+11',
  trip_distance: 21000,
  start_odometer: 100000,
  end_odometer: 121000,
  driver_id: 'd-1',
  start_location: 'Depot',
  end_location: 'Site',
  trip_type: 'Business',
  is_private: false,
  trip_title: 'Client visit',
  trip_extra_notes: '',
  harsh_braking_events: 2,
  harsh_acceleration_events: '1',
  harsh_cornering_events: 0,
  road_speeding_events: 3,
  road_speeding_duration_seconds: 75,
  thresholds_speeding_events: 1,
  thresholds_speeding_duration_seconds: 20,
  max_speed: 104,
  start_geofence_name: 'Depot',
  end_geofence_name: '',
  // not mapped by this version
  trip_duration: '00:30:30',
  start_coordinates: { latitude: -33.8, longitude: 151.1 },
  co2_grams: 4200,
};

describe('values and fields this version does not know', () => {
  it('a booking status not in the list is kept as sent and flagged; known ones in any spelling are known', async () => {
    const c = await serve(
      list([
        booking('BOOKING_STATUS_ON_HOLD'),
        { ...booking('returned_late'), booking_id: 6 },
        { ...booking('Booking_Status_Active'), booking_id: 7 },
      ]),
    );
    const [onHold, late, active] = await c.listBookings(day.startMs, day.endMs);
    expect(onHold).toMatchObject({ booking_status: 'BOOKING_STATUS_ON_HOLD', booking_status_known: false });
    expect(late).toMatchObject({
      booking_status: 'BOOKING_STATUS_RETURNED_LATE',
      booking_status_known: true,
    });
    expect(active).toMatchObject({ booking_status: 'BOOKING_STATUS_ACTIVE', booking_status_known: true });
  });

  it('a setup_status not in the list (drivers and vehicles) is kept as sent and flagged', async () => {
    const driver = {
      driver_id: 'd-1',
      first_name: 'Ann',
      last_name: 'Lee',
      department: 'Sales',
      can_book_carpool: true,
      allow_system_auto_booking: true,
      allow_specific_vehicle_booking: false,
      license_type_ids: [1],
      special_licenses: [],
    };
    const vehicle = { vehicle_id: 17, registration: 'ab 1', category: 'Ute', department: 'Sales' };
    const c = await serve(
      list([
        { ...vehicle, setup_status: 'AWAITING_INSPECTION' },
        { ...vehicle, vehicle_id: 18, setup_status: 'ready' },
      ]),
      list([
        { ...driver, setup_status: 'PENDING_LICENCE_CHECK' },
        { ...driver, driver_id: 'd-2', setup_status: 'ACTIVE_CARPOOL' },
      ]),
    );
    const vs = await c.listCarpoolVehicles();
    expect(vs.map((v) => [v.setup_status, v.setup_status_known])).toEqual([
      ['AWAITING_INSPECTION', false],
      ['READY', true],
    ]);
    const ds = await c.listCarpoolDrivers();
    expect(ds.map((d) => [d.setup_status, d.setup_status_known])).toEqual([
      ['PENDING_LICENCE_CHECK', false],
      ['ACTIVE_CARPOOL', true],
    ]);
    expect(ds[0]!.extra_fields).toBeNull();
  });

  it("a trip's wire fields are read, and only the keys no field maps are kept in extra_fields", async () => {
    const c = await serve(list([trip, { ...trip, trip_id: 'T2', trip_type: 'Commute', is_private: 'true' }]));
    const [t, odd] = await c.listTrips(day.startMs, day.endMs);
    expect(t).toMatchObject({
      trip_type: 'Business',
      trip_type_known: true,
      is_private: false,
      trip_title: 'Client visit',
      trip_extra_notes: null,
      harsh_braking_events: 2,
      harsh_acceleration_events: 1,
      harsh_cornering_events: 0,
      road_speeding_events: 3,
      road_speeding_duration_seconds: 75,
      thresholds_speeding_events: 1,
      thresholds_speeding_duration_seconds: 20,
      max_speed: 104,
      start_geofence_name: 'Depot',
      end_geofence_name: null,
    });
    expect(JSON.parse(t!.extra_fields!)).toEqual({
      trip_duration: '00:30:30',
      start_coordinates: { latitude: -33.8, longitude: 151.1 },
      co2_grams: 4200,
    });
    expect(odd).toMatchObject({ trip_type: 'Commute', trip_type_known: false, is_private: true });
  });

  it('an informational field of an unexpected type is not mapped but kept as sent; the trip is not failed', async () => {
    const c = await serve(
      list([{ ...trip, harsh_braking_events: 'lots', is_private: 'maybe', trip_title: { x: 1 } }]),
    );
    const [t] = await c.listTrips(day.startMs, day.endMs);
    expect(t).toMatchObject({
      harsh_braking_events: null,
      is_private: null,
      trip_title: null,
      harsh_cornering_events: 0,
    });
    expect(JSON.parse(t!.extra_fields!)).toMatchObject({
      harsh_braking_events: 'lots',
      is_private: 'maybe',
      trip_title: { x: 1 },
    });
  });

  it('a booking keeps its unmapped keys; a record without them has none', async () => {
    const c = await serve(
      list([
        booking('BOOKING_STATUS_ACTIVE', { fuel_card_id: 'FC-1' }),
        { ...booking('ACTIVE'), booking_id: 9 },
      ]),
    );
    const [a, b] = await c.listBookings(day.startMs, day.endMs);
    expect(a!.extra_fields).toBe('{"fuel_card_id":"FC-1"}');
    expect(b!.extra_fields).toBeNull();
  });

  it('vehicle activity and drivers keep their unmapped keys too', async () => {
    const c = await serve(
      list([
        {
          vehicle_id: 17,
          registration: 'ab 1',
          date: '2026-03-01',
          idle_time_seconds: 60,
          driving_time_seconds: 600,
          total_working_hours: '00:11',
          drivers: [],
        },
      ]),
      list([{ driver_id: 'd-1', first_name: 'Ann', status: 'ACTIVE', groups: [], licence_number: 'L-7' }]),
    );
    const [a] = await c.listVehicleActivity('2026-03-01');
    expect(a!.extra_fields).toBe('{"total_working_hours":"00:11"}');
    const [d] = await c.listDrivers();
    expect(d).toMatchObject({ status: 'active', extra_fields: '{"licence_number":"L-7"}' });
  });

  it('vehicles: fuel type and class where sent (engine_type / vehicle_type as the wire names them)', async () => {
    const v = { vehicle_id: 17, registration: 'ab 1', sensors: {} };
    const c = await serve(
      list([
        { ...v, engine_type: 'Diesel', vehicle_type: 'Ute' },
        { ...v, vehicle_id: 18, fuel_type: 'LPG', vehicle_class: 'Light truck', engine_type: 'Petrol' },
        { ...v, vehicle_id: 19 },
      ]),
    );
    const vs = await c.listVehicles();
    expect(vs.map((x) => [x.fuel_type, x.vehicle_class])).toEqual([
      ['Diesel', 'Ute'],
      ['LPG', 'Light truck'],
      [null, null],
    ]);
  });

  it('both timestamp styles of the real API give the same record', async () => {
    const iso = {
      ...trip,
      start_timestamp: '2026-03-01T08:15:00+11:00',
      end_timestamp: '2026-03-01T08:45:30+11:00',
    };
    const isoBooking = booking('BOOKING_STATUS_ACTIVE', {
      start_ts: '2026-03-01T08:15:00+11:00',
      end_ts: '2026-03-01T10:00:00+11:00',
      created_ts: '2026-02-27T08:00:00+11:00',
      updated_ts: '2026-03-01T08:00:00+11:00',
    });
    const c = await serve(
      list([trip]),
      list([iso]),
      list([booking('BOOKING_STATUS_ACTIVE')]),
      list([isoBooking]),
    );
    const space = await c.listTrips(day.startMs, day.endMs);
    expect(space[0]!.start_ms).toBe(Date.parse('2026-02-28T21:15:00Z'));
    expect(await c.listTrips(day.startMs, day.endMs)).toEqual(space);
    expect(await c.listBookings(day.startMs, day.endMs)).toEqual(
      await c.listBookings(day.startMs, day.endMs),
    );
  });

  it('a record missing what the rules need (an id, a time) still fails, naming the field, with a sample', async () => {
    const { trip_id: _id, ...noId } = trip;
    const { start_ts: _start, ...noStart } = booking('BOOKING_STATUS_ON_HOLD');
    const c = await serve(list([noId]), list([noStart]));
    const e1 = (await c.listTrips(day.startMs, day.endMs).catch((x: unknown) => x)) as FleetsyncError;
    expect(e1.code).toBe('E_PAYLOAD');
    expect(e1.message).toMatch(/data\.0\.trip_id/);
    expect(String(e1.details?.sample)).toMatch(/^keys=vehicle_id,registration,start_timestamp/); // trip_id is not among them
    const e2 = (await c.listBookings(day.startMs, day.endMs).catch((x: unknown) => x)) as FleetsyncError;
    expect(e2.code).toBe('E_PAYLOAD');
    expect(e2.message).toMatch(/data\.0\.start_ts/);
  });
});
