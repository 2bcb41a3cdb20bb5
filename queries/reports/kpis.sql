-- Fleet KPIs for the range (one row): odometer distance and fuel from the same models as
-- mileage.sql and fuel.sql (queries/models/; so the tiles tie to those CSVs), read from the daily
-- facts (queries/models/daily_facts.sql) as are the toll passages and trips; toll passages and
-- their charges (toll_passage_charges, as toll_charges.sql; the facts keep them per day), trips, carpool late-return rate (late
-- ÷ bookings that were checked out, from booking_status only) and data freshness.
-- Coverage (issue 12, queries/models/coverage.sql): range_days = the range's local days that have
-- ended, synced_days = those whose odometer (the selection's), trips and toll visits are all
-- settled, open_days = those whose odometer was pulled but something is not settled yet; coverage
-- is complete / partial / not_synced, or no_vehicle when the filter matches no vehicle. When not
-- one day of the range was pulled, every figure is blank (unknown), never 0; trips (toll
-- passages) are blank when the range's trips (toll visits) were never pulled. A day that has not
-- ended (today) counts as pulled when a window touched it (fleet_days): a range of today
-- alone shows what was pulled so far, or blanks when nothing of today was.
-- One period per screen (issue 25): toll passages, toll charges, trips and bookings are the
-- range's. Distance and fuel come from odometer and fuel windows, which are taken whole: when
-- every window of the selection that overlaps the range lies inside it (the ledger holds the
-- range in pieces: whole months, or the pieces a sync split at midnight), they are the range's
-- (span_basis 'range'); otherwise they are the whole local months the range touches
-- (span_basis 'whole_months', as mileage.sql and fuel.sql count them). span_from / span_to name
-- the local days they cover and span_coverage / span_synced_days / span_open_days / span_days
-- that span's coverage, so a figure never borrows the range's "complete". months_* are the whole
-- months' coverage (what the monthly costs report rests on).
WITH
-- the range's days (fleet_days), one scan: by every stream the range's figures rest on (a day is
-- synced when the selection's odometer, the trips and the toll visits are all settled, as trend.sql
-- counts it), and by the odometer alone (odo_*: what distance and fuel rest on); trips or toll
-- passages of a range whose trips (visits) were never pulled — not synced, or the endpoint refused —
-- are blank
cov AS (
  SELECT count(*) FILTER (WHERE ended) AS range_days, count(*) FILTER (WHERE synced) AS synced_days,
    count(*) FILTER (WHERE ended AND odometer_known AND NOT synced) AS open_days,
    count(*) FILTER (WHERE odometer_synced) AS odo_synced_days,
    count(*) FILTER (WHERE ended AND odometer_known AND NOT odometer_synced) AS odo_open_days,
    -- a day of the range was pulled (an ended day whole, today by a window touching it)
    coalesce(bool_or(odometer_known), false) AS odometer_known, coalesce(bool_or(trips_known), false) AS trips_known,
    coalesce(bool_or(visits_known), false) AS visits_known
  FROM fleet_days($account, $zone, $from_day, $to_day, $now, $vehicle::BIGINT, $department::VARCHAR)
),
mcov AS (
  SELECT count(*) AS range_days, count(*) FILTER (WHERE synced) AS synced_days,
    count(*) FILTER (WHERE pulled AND NOT synced) AS open_days
  FROM fleet_day_coverage(
    $account, $zone, months_first_day($from_day), months_last_day($to_day), $now, $vehicle::BIGINT, $department::VARCHAR
  )
),
known AS (SELECT odometer_known AS k, trips_known AS tk, visits_known AS vk FROM cov),
rng AS (SELECT * FROM local_days($zone, $from_day, $to_day)),
veh AS (SELECT * FROM selected_vehicles($account, $vehicle::BIGINT, $department::VARCHAR)),
-- the daily facts of the selection in the whole months (queries/models/daily_facts.sql: the
-- windows by the local day they start, with the latest end); in_days: the day is in the range
-- (not materialized: each reader's stream filter then reaches the table's scan)
facts AS NOT MATERIALIZED (
  SELECT f.*, month_of_day(f.day) AS period, f.day >= $from_day::DATE AND f.day <= $to_day::DATE AS in_days
  FROM vehicle_day_facts($account, $zone, months_first_day($from_day), months_last_day($to_day)) AS f
  WHERE f.vehicle_id IN (SELECT vehicle_id FROM veh)
),
-- the odometer and fuel windows of the selection in the whole months, per vehicle and day they
-- start: whether one of them overlaps the range (one starting in it does; one starting before it
-- does when it ends after its start) and whether all of them lie inside it
odo_w AS (
  SELECT f.*, f.in_days OR (f.day < $from_day::DATE AND f.last_window_end > rng.t0) AS touches,
    f.in_days AND f.last_window_end <= rng.t1 AS inside
  FROM facts AS f, rng
  WHERE f.stream = 'odometer'
),
fuel_w AS (
  SELECT f.*, f.in_days OR (f.day < $from_day::DATE AND f.last_window_end > rng.t0) AS touches,
    f.in_days AND f.last_window_end <= rng.t1 AS inside
  FROM facts AS f, rng
  WHERE f.stream IN ('fuel_consumed', 'fuel_level')
),
-- one basis for distance and fuel: the range when every overlapping window of both lies inside it
basis AS (
  SELECT coalesce(
    (SELECT bool_and(inside) FILTER (WHERE touches) FROM odo_w) IS NOT FALSE
      AND (SELECT bool_and(inside) FILTER (WHERE touches) FROM fuel_w) IS NOT FALSE,
    true) AS in_range
),
span AS (
  SELECT
    CASE WHEN in_range THEN $from_day::DATE ELSE months_first_day($from_day) END AS d0,
    CASE WHEN in_range THEN $to_day::DATE ELSE months_last_day($to_day) END AS d1,
    in_range
  FROM basis
),
-- the coverage of the span distance and fuel cover: the range's (odometer alone) or the months'
scov AS (
  SELECT c.range_days, c.synced_days, c.open_days
  FROM (
    SELECT true AS in_range, range_days, odo_synced_days AS synced_days, odo_open_days AS open_days FROM cov
    UNION ALL
    SELECT false, range_days, synced_days, open_days FROM mcov
  ) AS c
  JOIN span ON span.in_range = c.in_range
),
odo AS (
  -- per vehicle and month first, rounded as mileage.sql rounds, so the tile equals the CSV's sum
  SELECT sum(round(distance_m / 1000.0, 3)) AS distance_km, sum(excluded) AS excluded
  FROM (
    SELECT sum(o.distance_m) AS distance_m, sum(o.left_out) AS excluded
    FROM odo_w AS o
    WHERE o.touches OR NOT (SELECT in_range FROM span)
    GROUP BY o.vehicle_id, o.period
  ) AS per_month
),
fuel AS (
  -- per vehicle, month and source first, rounded as fuel.sql rounds
  SELECT sum(round(used_l, 3)) AS used_l, sum(excluded) AS excluded
  FROM (
    SELECT sum(f.used_l) AS used_l, sum(f.left_out) AS excluded
    FROM fuel_w AS f
    WHERE f.touches OR NOT (SELECT in_range FROM span)
    GROUP BY f.vehicle_id, f.period, f.stream
  ) AS per_month
),
-- the range's toll passages with their charges (toll_passage_charges, from the daily facts: the
-- toll_charges report's rows, summed as it sums them, each charge rounded to the cent) and its
-- trips, in one pass over the facts
counts AS (
  SELECT coalesce(sum(toll_passages) FILTER (WHERE stream = 'visits'), 0) AS passages,
    coalesce(sum(toll_no_tariff) FILTER (WHERE stream = 'visits'), 0) AS no_tariff,
    sum(toll_charged_rounded) FILTER (WHERE stream = 'visits') AS charged,
    coalesce(sum(trips) FILTER (WHERE stream = 'trips'), 0) AS trips
  FROM facts WHERE in_days AND stream IN ('visits', 'trips')
),
tolls AS (SELECT passages AS n FROM counts),
charges AS (SELECT passages AS n, no_tariff, charged FROM counts),
tr AS (SELECT trips AS n FROM counts),
bk AS (
  SELECT
    count(*) AS bookings,
    count_known(booking_checked_out(b.booking_status, b.booking_status_known)) AS checked_out,
    count_known(booking_late(b.booking_status, b.booking_status_known)) AS late
  FROM carpool_bookings AS b
  WHERE b.account = $account AND b.vehicle_id IN (SELECT vehicle_id FROM veh)
    AND b.start_time < local_range_end($zone, $to_day) AND b.end_time > local_range_start($zone, $from_day)
),
nomatch AS (
  SELECT ($vehicle::BIGINT IS NOT NULL OR $department::VARCHAR IS NOT NULL)
    AND NOT EXISTS (SELECT 1 FROM veh) AND EXISTS (SELECT 1 FROM vehicle_departments($account)) AS none
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
  CASE WHEN (SELECT k AND vk FROM known) THEN (SELECT n FROM tolls)::INTEGER END AS toll_passages,
  -- the charges of the passages with a tariff; blank when passages have none (never 0.00)
  CASE WHEN (SELECT k AND vk FROM known) AND NOT ((SELECT n FROM charges) > 0 AND (SELECT charged FROM charges) IS NULL)
    THEN round(coalesce((SELECT charged FROM charges), 0), 2)::DOUBLE END AS toll_charges_known,
  CASE WHEN (SELECT k AND vk FROM known) THEN (SELECT no_tariff FROM charges)::INTEGER END AS toll_no_tariff,
  CASE WHEN (SELECT k AND tk FROM known) THEN (SELECT n FROM tr)::INTEGER END AS trips,
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
  -- (issue 25): 'no_vehicle', so the page says "no vehicle matches", not "not synced"; the same
  -- for what distance and fuel cover
  CASE
    WHEN (SELECT none FROM nomatch) THEN 'no_vehicle'
    ELSE fleet_coverage_label(
      (SELECT synced_days FROM cov), (SELECT synced_days + open_days FROM cov), (SELECT range_days FROM cov)
    )
  END AS coverage,
  (SELECT CASE WHEN min(period) = max(period) THEN min(period) ELSE min(period) || ' to ' || max(period) END
    FROM range_months($from_day, $to_day)) AS month_span,
  CASE WHEN (SELECT in_range FROM span) THEN 'range' ELSE 'whole_months' END AS span_basis,
  strftime((SELECT d0 FROM span), '%Y-%m-%d') AS span_from,
  strftime((SELECT d1 FROM span), '%Y-%m-%d') AS span_to,
  CASE
    WHEN (SELECT none FROM nomatch) THEN 'no_vehicle'
    ELSE fleet_coverage_label(
      (SELECT synced_days FROM scov), (SELECT synced_days + open_days FROM scov), (SELECT range_days FROM scov)
    )
  END AS span_coverage,
  (SELECT synced_days FROM scov)::INTEGER AS span_synced_days,
  (SELECT open_days FROM scov)::INTEGER AS span_open_days,
  (SELECT range_days FROM scov)::INTEGER AS span_days,
  fleet_coverage_label(
    (SELECT synced_days FROM mcov), (SELECT synced_days + open_days FROM mcov), (SELECT range_days FROM mcov)
  ) AS months_coverage,
  (SELECT synced_days FROM mcov)::INTEGER AS months_synced_days,
  (SELECT open_days FROM mcov)::INTEGER AS months_open_days,
  (SELECT range_days FROM mcov)::INTEGER AS months_days;
