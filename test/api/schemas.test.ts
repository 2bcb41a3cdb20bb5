/**
 * Every payload variant of the wire notes, served over HTTP, parses to the same normalized record;
 * a payload that does not parse fails with E_PAYLOAD naming endpoint and field, with a sample.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createFleetClient, type FleetClient } from '../../src/api/client.ts';
import { FleetsyncError, isFleetsyncError } from '../../src/errors.ts';
import { localDayBounds } from '../../src/time.ts';
import { fakeClock, json, list, PASSWORD, startServer, type TestServer } from '../helpers/api.ts';

const ZONE = 'Africa/Johannesburg'; // +02, like the captures in the wire notes
const day = localDayBounds('2026-09-20', ZONE);
const WANT_MS = Date.parse('2026-09-20T08:32:41Z');

let srv: TestServer | undefined;
let client: FleetClient | undefined;
afterEach(async () => {
  await client?.close();
  await srv?.close();
  srv = client = undefined;
});

/** Serves `bodies[i]` to the i-th request. */
async function serve(...bodies: unknown[]): Promise<FleetClient> {
  const clock = fakeClock();
  srv = await startServer((_r, res, n) => json(res, 200, bodies[n - 1] ?? { data: [] }), clock.now);
  client = createFleetClient({
    baseUrl: srv.baseUrl,
    username: 'acme',
    password: PASSWORD,
    timezone: ZONE,
    now: clock.now,
    sleep: clock.sleep,
  });
  return client;
}

describe('schema variants of the wire notes', () => {
  it('odometer: last_event_ts (wire) and latest_event_ts (docs), string ids and numeric strings', async () => {
    const c = await serve(
      {
        data: {
          vehicle_id: 17,
          registration: 'ab 1',
          start_odometer_value: 1000,
          end_odometer_value: 2500,
          distance: 1500,
          current_odometer_value: 3000,
          last_event_ts: '2026-09-20 10:32:41+02',
          odometer_reset: false,
          terminal_has_changed: false,
          chassis_number: 'extra field',
        },
      },
      {
        data: {
          vehicle_id: '17',
          start_odometer_value: '1000',
          end_odometer_value: '2500',
          distance: '1500',
          current_odometer_value: '3000',
          latest_event_ts: '2026-09-20T08:32:41Z',
          odometer_reset: 'false',
          terminal_has_changed: 0,
        },
      },
      { data: null },
      { data: {} },
      {
        data: {
          vehicle_id: 17,
          distance: 1500,
          last_event_ts: '2026-09-20 10:32:41+02',
          terminal_has_changed: false,
        },
      },
    );
    const a = await c.getOdometer('ab 1', day.startMs, day.endMs);
    const b = await c.getOdometer('ab 1', day.startMs, day.endMs);
    expect(a).toEqual(b);
    expect(a).toEqual({
      vehicle_id: 17,
      registration: 'ab 1',
      start_odometer_m: 1000,
      end_odometer_m: 2500,
      distance_m: 1500,
      current_odometer_m: 3000,
      last_event_ms: WANT_MS,
      odometer_reset: false,
      terminal_has_changed: false,
    });
    expect(await c.getOdometer('ab 1', day.startMs, day.endMs)).toBeNull();
    expect(await c.getOdometer('ab 1', day.startMs, day.endMs)).toBeNull();
    // The reset flags decide whether `distance` counts: without them the window must fail.
    const e = await c.getOdometer('ab 1', day.startMs, day.endMs).catch((x: unknown) => x);
    expect(isFleetsyncError(e, 'E_PAYLOAD')).toBe(true);
    expect((e as Error).message).toContain('odometer_reset');
  });

  it('fuel level: start_period{liters,timestamp,accurate} and start{fuel_level,event_ts,is_accurate}', async () => {
    const c = await serve(
      {
        data: {
          start_period: { liters: 40.5, timestamp: '2026-09-20T10:32:41+02:00', accurate: true },
          end_period: { liters: '30', timestamp: '2026-09-20T12:00:00+02:00', accurate: false },
          estimated_fuel_used: 10.5,
          calibrated: true,
        },
      },
      {
        data: {
          start: { fuel_level: '40.5', event_ts: '2026-09-20 10:32:41+02', is_accurate: 'true' },
          end: { fuel_level: 30, event_ts: '2026-09-20 12:00:00', is_accurate: false },
          estimated_fuel_used: '10.5',
          is_calibrated: true,
        },
      },
    );
    const a = await c.getFuelLevel('ab 1', day.startMs, day.endMs);
    const b = await c.getFuelLevel('ab 1', day.startMs, day.endMs);
    expect(a).toEqual(b);
    expect(a?.start).toEqual({ litres: 40.5, ms: WANT_MS, accurate: true });
    expect(a?.end.ms).toBe(Date.parse('2026-09-20T10:00:00Z'));
    expect(a?.calibrated).toBe(true);
    expect(a?.registration).toBe('ab 1');
  });

  it('fuel fills: wire names and doc names; extra meta keys ignored', async () => {
    const wire = {
      vehicle_id: 17,
      registration: 'ab 1',
      chassis_number: 'C',
      vehicle_description: 'x',
      fill_amount_litres: 55.2,
      fill_timestamp: '2026-09-20 10:32:41+02',
      fill_odometer: 123456,
      fill_location: 'Main Rd',
      latitude: -26.1,
      longitude: 28,
      accurate: true,
    };
    const doc = {
      vehicle_id: '17',
      registration: 'ab 1',
      fuel_filled: '55.2',
      event_ts: '2026-09-20 10:32:41+0200',
      odometer: '123456',
      location: 'Main Rd',
      accurate: 1,
    };
    const c = await serve(list([wire], { calibrated: true, something_new: 'x' }), list([doc]));
    const a = await c.listFuelFills('ab 1', day.startMs, day.endMs);
    const b = await c.listFuelFills('ab 1', day.startMs, day.endMs);
    const fill = {
      vehicle_id: 17,
      registration: 'ab 1',
      fill_ms: WANT_MS,
      amount_l: 55.2,
      odometer_m: 123456,
      location: 'Main Rd',
      accurate: true,
    };
    // the wire's keys no field maps are kept; the doc variant has none
    expect(a).toEqual([
      {
        ...fill,
        extra_fields: '{"chassis_number":"C","vehicle_description":"x","latitude":-26.1,"longitude":28}',
      },
    ]);
    expect(b).toEqual([{ ...fill, extra_fields: null }]);
  });

  it('trips: every timestamp form, string and numeric ids; vehicles: vehicle_name or client_vehicle_name', async () => {
    const forms = [
      '2026-09-20 10:32:41+02',
      '2026-09-20 10:32:41+02:00',
      '2026-09-20T10:32:41+02:00',
      '2026-09-20T08:32:41Z',
      '2026-09-20 10:32:41', // no offset: the account zone
      '2026-09-20 10:32:41.000+0200',
    ];
    const trips = forms.map((f, i) => ({
      trip_id: i % 2 ? 900 + i : String(900 + i),
      vehicle_id: i % 2 ? '17' : 17,
      registration: 'ab 1',
      start_timestamp: f,
      end_timestamp: '2026-09-20 11:00:00+02',
      trip_distance: i % 2 ? '1200' : 1200,
      start_odometer: 1000,
      end_odometer: '2200',
    }));
    const vehicle = {
      vehicle_id: 17,
      registration: 'ab 1',
      model_year: 2013,
      sensors: { fuel_canbus_consumed: true },
    };
    const c = await serve(
      list(trips),
      list([
        { ...vehicle, vehicle_name: 'Van 1' },
        { ...vehicle, vehicle_id: '17', model_year: '2013', client_vehicle_name: 'Van 1' },
      ]),
    );
    const got = await c.listTrips(day.startMs, day.endMs);
    expect(got.map((t) => t.start_ms)).toEqual(forms.map(() => WANT_MS));
    expect(got.map((t) => t.trip_id)).toEqual(forms.map((_, i) => String(900 + i)));
    expect(new Set(got.map((t) => `${t.vehicle_id}/${t.trip_distance_m}/${t.end_odometer_m}`))).toEqual(
      new Set(['17/1200/2200']),
    );
    const [v1, v2] = await c.listVehicles();
    expect(v1).toEqual(v2);
    expect(v1?.vehicle_name).toBe('Van 1');
    expect(v1?.sensors).toEqual({
      fuel_canbus_consumed: true,
      fuel_canbus_level: false,
      fuel_analog_level: false,
      electric_battery: false,
      electric_charging: false,
    });
  });

  it('fuel consumed: data {} means no CAN data (null); bulk items parse the same', async () => {
    const item = {
      vehicle_id: 17,
      registration: 'ab 1',
      fuel_consumed_start: 100,
      fuel_consumed_end: '112.5',
      fuel_consumed: 12.5,
    };
    const c = await serve({ data: {} }, { data: item }, list([{ ...item, fuel_consumed_end: 112.5 }]));
    expect(await c.getFuelConsumed('ab 1', day.startMs, day.endMs)).toBeNull();
    const single = await c.getFuelConsumed('ab 1', day.startMs, day.endMs);
    const bulk = await c.getFuelConsumedBulk(['ab 1'], day.startMs, day.endMs);
    expect(bulk).toEqual([single]);
    expect(single?.counter_end_l).toBe(112.5);
  });

  it('carpool, geofences and visits parse to the normalized records', async () => {
    const booking = {
      booking_id: '5',
      vehicle_id: 17,
      registration: 'ab 1',
      driver_id: 'd-1',
      department: null,
      booking_status: 'BOOKING_STATUS_RETURNED_LATE',
      is_approved: true,
      approved_by: null,
      declined_by: null,
      start_ts: '2026-09-20 08:00:00+02',
      end_ts: '2026-09-20 10:00:00+02',
      picked_up_at: '2026-09-20 08:05:00+02',
      returned_at: '2026-09-20 10:32:41+02',
      created_ts: '2026-09-19 08:00:00+02',
      updated_ts: '2026-09-20 10:33:00+02',
    };
    const c = await serve(
      list([booking]),
      { data: booking },
      list([{ geofence_id: 'g-1', name: 'Toll A', description: null, colour: '#fff', is_toll: true }]),
      list([
        {
          vehicle_id: 17,
          registration: 'ab 1',
          geofence_id: 'g-1',
          geofence_name: 'Toll A',
          is_toll: true,
          enter_timestamp: '2026-09-20 10:32:41+02',
          exit_timestamp: '2026-09-20 10:33:41+02',
          duration_total: '60',
        },
      ]),
      list([{ booking_rule_id: 1, name: 'max_days', value: 3 }]),
    );
    const [b] = await c.listBookings(day.startMs, day.endMs);
    expect(b).toMatchObject({
      booking_id: 5,
      booking_status: 'BOOKING_STATUS_RETURNED_LATE',
      returned_ms: WANT_MS,
    });
    expect(await c.getBooking(5)).toEqual(b);
    expect(await c.listGeofences()).toEqual([
      {
        geofence_id: 'g-1',
        name: 'Toll A',
        description: null,
        colour: '#fff',
        is_toll: true,
        extra_fields: null,
      },
    ]);
    const [v] = await c.listVisits(day.startMs, day.endMs, { isToll: true });
    expect(v).toEqual({
      vehicle_id: 17,
      registration: 'ab 1',
      geofence_id: 'g-1',
      geofence_name: 'Toll A',
      is_toll: true,
      enter_ms: WANT_MS,
      exit_ms: WANT_MS + 60_000,
      duration_s: 60,
      extra_fields: null,
    });
    expect(await c.listBookingRules()).toEqual([{ booking_rule_id: 1, name: 'max_days', value: 3 }]);
  });
});

describe('payloads that do not parse', () => {
  it('fail with E_PAYLOAD naming the endpoint and field, with a short sample of the body', async () => {
    const c = await serve(
      list([
        {
          vehicle_id: 17,
          registration: 'ab 1',
          fill_timestamp: '2026-09-20 10:32:41+02',
          pad: 'x'.repeat(1000),
        },
      ]),
      list([
        {
          trip_id: 1,
          vehicle_id: 17,
          registration: 'ab 1',
          start_timestamp: 'yesterday',
          end_timestamp: 'x',
          trip_distance: 1,
        },
      ]),
      { data: 'nope' },
    );
    const fills = await c.listFuelFills('ab 1', day.startMs, day.endMs).catch((e: unknown) => e);
    expect(isFleetsyncError(fills, 'E_PAYLOAD')).toBe(true);
    const e = fills as FleetsyncError;
    expect(e.message).toContain('GET /fuel/fills/{registration}');
    expect(e.message).toContain('fill_amount_litres');
    const sample = e.details?.sample as string;
    expect(sample.length).toBeGreaterThan(20);
    expect(sample.length).toBeLessThanOrEqual(300);
    expect(sample).toContain('"vehicle_id":17');

    const trips = (await c.listTrips(day.startMs, day.endMs).catch((x: unknown) => x)) as FleetsyncError;
    expect(trips.code).toBe('E_PAYLOAD');
    expect(trips.message).toMatch(/data\.0\.start_timestamp: not a timestamp: "yesterday"/);

    const odo = (await c
      .getOdometer('ab 1', day.startMs, day.endMs)
      .catch((x: unknown) => x)) as FleetsyncError;
    expect(odo.code).toBe('E_PAYLOAD');
    expect(srv!.seen).toHaveLength(3); // schema failures are not retried
  });
});
