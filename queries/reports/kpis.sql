-- Fleet KPIs for the range (one row): odometer distance and fuel from the same models as
-- mileage.sql and fuel.sql (queries/models/; so the tiles tie to those CSVs), toll passages,
-- trips, carpool late-return rate (late ÷ bookings that were checked out, from booking_status
-- only) and data freshness.
-- Coverage (issue 12, queries/models/coverage.sql): range_days = the range's local days that have
-- ended, synced_days = those the odometer stream synced for every selected vehicle; coverage is
-- complete / partial / not_synced, or no_vehicle when the filter matches no vehicle. When not one day of the range was synced, every figure is
-- blank (unknown), never 0. distance_km and fuel_used_l are monthly by rule (odometer and fuel
-- windows are taken whole into their local month): month_span names the months they cover, so a
-- one-day range shows them labelled as their month, not prorated.
WITH
cov AS (
  SELECT count(*) AS range_days, count(*) FILTER (WHERE synced) AS synced_days,
    count(*) FILTER (WHERE pulled AND NOT synced) AS open_days
  FROM fleet_day_coverage($account, $zone, $from_day, $to_day, $now, $vehicle::BIGINT, $department::VARCHAR)
),
known AS (SELECT NOT (range_days > 0 AND synced_days + open_days = 0) AS k FROM cov),
veh AS (SELECT * FROM selected_vehicles($account, $vehicle::BIGINT, $department::VARCHAR)),
odo AS (
  -- per vehicle and month first, rounded as mileage.sql rounds, so the tile equals the CSV's sum
  SELECT sum(round(distance_m / 1000.0, 3)) AS distance_km, sum(excluded) AS excluded
  FROM (
    SELECT sum(o.counted_m) AS distance_m, count(*) FILTER (WHERE NOT o.counted) AS excluded
    FROM odometer_windows_classified($account, $zone, $from_day, $to_day) AS o
    WHERE o.vehicle_id IN (SELECT vehicle_id FROM veh)
    GROUP BY o.vehicle_id, o.period
  ) AS per_month
),
fuel AS (
  -- per vehicle, month and source first, rounded as fuel.sql rounds
  SELECT sum(round(used_l, 3)) AS used_l, sum(excluded) AS excluded
  FROM (
    SELECT sum(f.used_l) AS used_l, count(*) FILTER (WHERE f.excluded) AS excluded
    FROM fuel_windows_classified($account, $zone, $from_day, $to_day) AS f
    WHERE f.vehicle_id IN (SELECT vehicle_id FROM veh)
    GROUP BY f.vehicle_id, f.period, f.source
  ) AS per_month
),
tolls AS (
  SELECT count(*) AS n
  FROM toll_passages($account) AS gv
  WHERE gv.vehicle_id IN (SELECT vehicle_id FROM veh)
    AND gv.enter_time >= local_range_start($zone, $from_day) AND gv.enter_time < local_range_end($zone, $to_day)
),
tr AS (
  SELECT count(*) AS n
  FROM trips AS t
  WHERE t.account = $account AND t.vehicle_id IN (SELECT vehicle_id FROM veh)
    AND t.start_time >= local_range_start($zone, $from_day) AND t.start_time < local_range_end($zone, $to_day)
),
bk AS (
  SELECT
    count(*) AS bookings,
    count_known(booking_checked_out(b.booking_status, b.booking_status_known)) AS checked_out,
    count_known(booking_late(b.booking_status, b.booking_status_known)) AS late
  FROM carpool_bookings AS b
  WHERE b.account = $account AND b.vehicle_id IN (SELECT vehicle_id FROM veh)
    AND b.start_time < local_range_end($zone, $to_day) AND b.end_time > local_range_start($zone, $from_day)
),
lastrun AS (
  SELECT run_id, ended_at, outcome FROM runs WHERE account = $account
  ORDER BY started_at DESC LIMIT 1
)
SELECT
  CASE WHEN (SELECT k FROM known) THEN round((SELECT distance_km FROM odo), 3)::DOUBLE END AS distance_km,
  CASE WHEN (SELECT k FROM known) THEN (SELECT excluded FROM odo)::INTEGER END AS excluded_odometer_windows,
  CASE WHEN (SELECT k FROM known) THEN round((SELECT used_l FROM fuel), 3)::DOUBLE END AS fuel_used_l,
  CASE WHEN (SELECT k FROM known) THEN (SELECT excluded FROM fuel)::INTEGER END AS excluded_fuel_windows,
  CASE WHEN (SELECT k FROM known) THEN (SELECT n FROM tolls)::INTEGER END AS toll_passages,
  CASE WHEN (SELECT k FROM known) THEN (SELECT n FROM tr)::INTEGER END AS trips,
  CASE WHEN (SELECT k FROM known) THEN (SELECT bookings FROM bk)::INTEGER END AS bookings,
  CASE WHEN (SELECT k FROM known) THEN (SELECT late FROM bk)::INTEGER END AS late_returns,
  CASE WHEN (SELECT k FROM known) THEN (SELECT checked_out FROM bk)::INTEGER END AS checked_out,
  CASE WHEN (SELECT k FROM known) THEN round((SELECT late FROM bk) / nullif((SELECT checked_out FROM bk), 0), 4)::DOUBLE END AS late_return_rate,
  (SELECT count(*) FROM veh)::INTEGER AS vehicles,
  iso_local(complete_through($account), $zone) AS complete_through,
  strftime(complete_through_day($account, $zone), '%Y-%m-%d') AS complete_through_day,
  (SELECT run_id FROM lastrun) AS last_run_id,
  (SELECT outcome FROM lastrun) AS last_run_outcome,
  iso_local((SELECT ended_at FROM lastrun), $zone) AS last_run_ended_at,
  $zone::VARCHAR AS zone,
  (SELECT synced_days FROM cov)::INTEGER AS synced_days,
  (SELECT open_days FROM cov)::INTEGER AS open_days,
  (SELECT range_days FROM cov)::INTEGER AS range_days,
  -- a vehicle / department filter that matches none of the account's vehicles is not a sync gap
  -- (issue 25): 'no_vehicle', so the page says "no vehicle matches", not "not synced"
  CASE
    WHEN ($vehicle::BIGINT IS NOT NULL OR $department::VARCHAR IS NOT NULL)
      AND NOT EXISTS (SELECT 1 FROM veh) AND EXISTS (SELECT 1 FROM vehicle_departments($account))
      THEN 'no_vehicle'
    ELSE fleet_coverage_label(
      (SELECT synced_days FROM cov), (SELECT synced_days + open_days FROM cov), (SELECT range_days FROM cov)
    )
  END AS coverage,
  (SELECT CASE WHEN min(period) = max(period) THEN min(period) ELSE min(period) || ' to ' || max(period) END
    FROM range_months($from_day, $to_day)) AS month_span;
