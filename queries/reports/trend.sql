-- Activity by local day, ISO week or month ($grain) over the range: trips, trip distance
-- (indicative only: period totals come from odometer windows), toll passages, bookings and
-- late returns. Every period of the range has a row. Trips and toll passages come from the daily
-- facts (queries/models/daily_facts.sql: per vehicle and local day).
-- coverage / covered_share (queries/models/coverage.sql): of the period's days in the range that
-- have ended, the share the odometer stream settled (done or flagged) for every selected vehicle.
-- A period of which not one day was pulled has blank values (unknown, a gap in the chart), never
-- 0; a day still open for late data shows what was pulled and reads 'partial'. A day that has not
-- ended (today) counts as pulled when a window touched it (fleet_days): a period of today
-- alone shows what was pulled so far, or blanks when nothing of today was. Trips and toll
-- passages rest on their own streams too: a period none of whose days the trips (toll visits)
-- stream pulled — not synced, or its endpoint refused — has them blank, and a day counts as
-- synced for coverage only when the odometer, the trips and the toll visits are all settled.
WITH
cov AS (
  SELECT date_trunc($grain::VARCHAR, day)::DATE AS p, count(*) FILTER (WHERE ended) AS range_days,
    count(*) FILTER (WHERE synced) AS synced_days,
    count(*) FILTER (WHERE ended AND odometer_known) AS pulled_days,
    -- a day of the period was pulled (an ended day whole, today by a window touching it)
    bool_or(odometer_known) AS known, bool_or(trips_known) AS trips_known, bool_or(visits_known) AS visits_known
  FROM fleet_days($account, $zone, $from_day, $to_day, $now, $vehicle::BIGINT, $department::VARCHAR)
  GROUP BY 1
),
veh AS (SELECT * FROM selected_vehicles($account, $vehicle::BIGINT, $department::VARCHAR)),
periods AS (
  SELECT DISTINCT date_trunc($grain::VARCHAR, d)::DATE AS p
  FROM generate_series($from_day::DATE::TIMESTAMP, $to_day::DATE::TIMESTAMP, INTERVAL 1 DAY) AS g(d)
),
facts AS (
  SELECT date_trunc($grain::VARCHAR, f.day)::DATE AS p, f.stream, f.trips, f.trip_distance_m, f.toll_passages
  FROM vehicle_day_facts($account, $zone, $from_day, $to_day) AS f
  WHERE f.stream IN ('trips', 'visits') AND f.vehicle_id IN (SELECT vehicle_id FROM veh)
),
tr AS (SELECT p, sum(trips) AS n, sum(trip_distance_m) AS m FROM facts WHERE stream = 'trips' GROUP BY 1),
tl AS (SELECT p, sum(toll_passages) AS n FROM facts WHERE stream = 'visits' GROUP BY 1),
bk AS (
  SELECT date_trunc($grain::VARCHAR, timezone($zone, b.start_time))::DATE AS p,
    count(*) AS n,
    count_known(booking_late(b.booking_status, b.booking_status_known)) AS late
  FROM carpool_bookings AS b
  WHERE b.account = $account AND b.vehicle_id IN (SELECT vehicle_id FROM veh)
    AND b.start_time >= local_range_start($zone, $from_day) AND b.start_time < local_range_end($zone, $to_day)
  GROUP BY 1
)
SELECT
  strftime(periods.p, CASE $grain::VARCHAR WHEN 'month' THEN '%Y-%m' ELSE '%Y-%m-%d' END) AS period,
  CASE WHEN cov.known AND cov.trips_known THEN coalesce(tr.n, 0) END::INTEGER AS trips,
  CASE WHEN cov.known AND cov.trips_known THEN round(coalesce(tr.m, 0) / 1000.0, 3) END::DOUBLE AS trip_distance_km,
  CASE WHEN cov.known AND cov.visits_known THEN coalesce(tl.n, 0) END::INTEGER AS toll_passages,
  CASE WHEN cov.known THEN coalesce(bk.n, 0) END::INTEGER AS bookings,
  CASE WHEN cov.known THEN if(bk.n IS NULL, 0, bk.late) END::INTEGER AS late_returns,
  fleet_coverage_label(coalesce(cov.synced_days, 0), coalesce(cov.pulled_days, 0), coalesce(cov.range_days, 0))
    AS coverage,
  round(cov.synced_days / nullif(cov.range_days, 0), 4)::DOUBLE AS covered_share
FROM periods
LEFT JOIN cov ON cov.p = periods.p
LEFT JOIN tr ON tr.p = periods.p
LEFT JOIN tl ON tl.p = periods.p
LEFT JOIN bk ON bk.p = periods.p
ORDER BY periods.p;
