-- Fleet KPIs for the range (one row): odometer distance and fuel by the same rules and month
-- selection as mileage.sql and fuel.sql (so the tiles tie to those CSVs), toll passages,
-- trips, carpool late-return rate (late ÷ bookings that were checked out, from booking_status
-- only) and data freshness.
WITH
veh AS (
  SELECT * FROM vehicle_departments($account)
  WHERE ($vehicle::BIGINT IS NULL OR vehicle_id = $vehicle::BIGINT)
    AND ($department::VARCHAR IS NULL OR department = $department::VARCHAR)
),
rng AS (
  SELECT
    timezone($zone, $from_day::DATE::TIMESTAMP) AS t0,
    timezone($zone, ($to_day::DATE + 1)::TIMESTAMP) AS t1,
    -- the local months the range touches, as instants: rows are compared raw, not converted
    timezone($zone, date_trunc('month', $from_day::DATE)::TIMESTAMP) AS m0,
    timezone($zone, (date_trunc('month', $to_day::DATE) + INTERVAL 1 MONTH)::TIMESTAMP) AS m1
),
odo AS (
  -- per vehicle and month first, rounded as mileage.sql rounds, so the tile equals the CSV's sum
  SELECT sum(round(distance_m / 1000.0, 3)) AS distance_km, sum(excluded) AS excluded
  FROM (
    SELECT
      sum(o.distance_m) FILTER (WHERE NOT (o.odometer_reset OR o.terminal_has_changed)) AS distance_m,
      count(*) FILTER (WHERE o.odometer_reset OR o.terminal_has_changed) AS excluded
    FROM odometer_windows AS o, rng
    WHERE o.account = $account AND o.vehicle_id IN (SELECT vehicle_id FROM veh)
      AND o.window_start >= rng.m0 AND o.window_start < rng.m1
    GROUP BY o.vehicle_id, strftime(timezone($zone, o.window_start), '%Y-%m')
  ) AS per_month
),
counter_vehicles AS (
  SELECT vehicle_id FROM vehicles WHERE account = $account AND fuel_canbus_consumed
  UNION
  SELECT DISTINCT vehicle_id FROM fuel_consumed WHERE account = $account
),
fuel AS (
  SELECT sum(round(used_l, 3)) AS used_l, sum(excluded) AS excluded
  FROM (
    SELECT
      f.vehicle_id,
      sum(f.counter_end_l - f.counter_start_l) FILTER (WHERE coalesce(f.counter_end_l >= f.counter_start_l, false)) AS used_l,
      count(*) FILTER (WHERE NOT coalesce(f.counter_end_l >= f.counter_start_l, false)) AS excluded
    FROM fuel_consumed AS f, rng
    WHERE f.account = $account AND f.vehicle_id IN (SELECT vehicle_id FROM veh)
      AND f.window_start >= rng.m0 AND f.window_start < rng.m1
    GROUP BY f.vehicle_id, strftime(timezone($zone, f.window_start), '%Y-%m')
    UNION ALL
    SELECT f.vehicle_id, sum(f.estimated_used_l), 0
    FROM fuel_level AS f, rng
    WHERE f.account = $account AND f.vehicle_id IN (SELECT vehicle_id FROM veh)
      AND f.vehicle_id NOT IN (SELECT vehicle_id FROM counter_vehicles)
      AND f.window_start >= rng.m0 AND f.window_start < rng.m1
    GROUP BY f.vehicle_id, strftime(timezone($zone, f.window_start), '%Y-%m')
  ) AS per_month
),
tolls AS (
  SELECT count(*) AS n
  FROM geofence_visits AS gv
  LEFT JOIN geofences AS g ON g.account = gv.account AND g.geofence_id = gv.geofence_id
  CROSS JOIN rng
  WHERE gv.account = $account AND coalesce(g.is_toll, gv.is_toll, false)
    AND gv.vehicle_id IN (SELECT vehicle_id FROM veh)
    AND gv.enter_time >= rng.t0 AND gv.enter_time < rng.t1
),
tr AS (
  SELECT count(*) AS n
  FROM trips AS t, rng
  WHERE t.account = $account AND t.vehicle_id IN (SELECT vehicle_id FROM veh)
    AND t.start_time >= rng.t0 AND t.start_time < rng.t1
),
bk AS (
  SELECT
    count(*) AS bookings,
    count(*) FILTER (WHERE b.booking_status IN (
      'BOOKING_STATUS_ACTIVE', 'BOOKING_STATUS_ACTIVE_ALMOST_LATE', 'BOOKING_STATUS_ACTIVE_LATE',
      'BOOKING_STATUS_RETURNED', 'BOOKING_STATUS_RETURNED_LATE', 'BOOKING_STATUS_FORCE_TERMINATED'
    )) AS checked_out,
    count(*) FILTER (WHERE b.booking_status IN ('BOOKING_STATUS_ACTIVE_LATE', 'BOOKING_STATUS_RETURNED_LATE')) AS late
  FROM carpool_bookings AS b, rng
  WHERE b.account = $account AND b.vehicle_id IN (SELECT vehicle_id FROM veh)
    AND b.start_time < rng.t1 AND b.end_time > rng.t0
),
lastrun AS (
  SELECT run_id, ended_at, outcome FROM runs WHERE account = $account
  ORDER BY started_at DESC LIMIT 1
)
SELECT
  round((SELECT distance_km FROM odo), 3)::DOUBLE AS distance_km,
  (SELECT excluded FROM odo)::INTEGER AS excluded_odometer_windows,
  round((SELECT used_l FROM fuel), 3)::DOUBLE AS fuel_used_l,
  (SELECT excluded FROM fuel)::INTEGER AS excluded_fuel_windows,
  (SELECT n FROM tolls)::INTEGER AS toll_passages,
  (SELECT n FROM tr)::INTEGER AS trips,
  (SELECT bookings FROM bk)::INTEGER AS bookings,
  (SELECT late FROM bk)::INTEGER AS late_returns,
  round((SELECT late FROM bk) / nullif((SELECT checked_out FROM bk), 0), 4)::DOUBLE AS late_return_rate,
  (SELECT count(*) FROM veh)::INTEGER AS vehicles,
  iso_local(complete_through($account), $zone) AS complete_through,
  strftime(complete_through_day($account, $zone), '%Y-%m-%d') AS complete_through_day,
  (SELECT run_id FROM lastrun) AS last_run_id,
  (SELECT outcome FROM lastrun) AS last_run_outcome,
  iso_local((SELECT ended_at FROM lastrun), $zone) AS last_run_ended_at,
  $zone::VARCHAR AS zone;
