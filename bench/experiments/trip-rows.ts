/** Trip rows as the trips stream writes them, numbered, for the write experiments. */
import type { Row } from '../../src/store/write.ts';

export const tripRow = (i: number): Row => ({
  account: 'bench',
  trip_id: `trip-${i}`,
  vehicle_id: i % 500,
  registration: `AB-${i % 500}`,
  start_time: 1_700_000_000_000 + i * 60_000,
  end_time: 1_700_000_000_000 + i * 60_000 + 1_800_000,
  trip_distance_m: i % 10_000,
  start_odometer_m: i,
  end_odometer_m: i + 100,
  driver_id: `d${i % 90}`,
  start_location: '59.3293,18.0686',
  end_location: '59.3326,18.0649',
});
