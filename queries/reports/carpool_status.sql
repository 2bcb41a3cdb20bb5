-- Bookings by current booking_status (scheduled window overlapping the range).
WITH
veh AS (SELECT * FROM selected_vehicles($account, $vehicle::BIGINT, $department::VARCHAR)),
rng AS (SELECT * FROM local_days($zone, $from_day, $to_day))
SELECT
  b.booking_status,
  count(*)::INTEGER AS bookings,
  round(count(*) / sum(count(*)) OVER (), 4)::DOUBLE AS share
FROM carpool_bookings AS b
CROSS JOIN rng
JOIN veh ON veh.vehicle_id = b.vehicle_id
WHERE b.account = $account AND b.start_time < rng.t1 AND b.end_time > rng.t0
GROUP BY b.booking_status
ORDER BY bookings DESC, b.booking_status;
