-- Drivers per local month (the local months the range touches): distance and trips from the
-- trips' driver ids (the trip distance as the API reports it per trip: the only per-driver figure
-- the API gives; fleet totals stay with the odometer, mileage.sql), carpool bookings scheduled to
-- start in the month and late returns among them (booking_status ACTIVE_LATE / RETURNED_LATE).
-- Every driver the API lists (GET /drivers, the carpool's drivers) and every driver id seen in a
-- trip or booking has a row per month. A month whose trips (bookings) are not synced at all
-- (no ledger window with data: done, flagged or still incomplete) is blank in distance and trips
-- (bookings, late returns), never 0.
-- Attribution has a remainder (issue 25): the trips (and bookings) without a driver id are one
-- row per month, driver_id NULL and driver_name 'no driver recorded', so the rows of a month add
-- up to all its trips; distance_share is a row's share of the month's trip distance (the drivers'
-- shares together are the attributed share; blank when the month has no trip distance or its
-- trips are not synced).
-- coverage / covered_share: of the month's ended local days, those the trips stream settled
-- (fleet_stream_day_coverage, queries/models/coverage.sql); 'partial' while a day is missing or
-- still open for late data, 'not_synced' when none was pulled.
WITH
months AS (SELECT * FROM local_month_list($zone, $from_day, $to_day)),
veh AS (SELECT * FROM vehicle_departments($account)),
tr AS (
  SELECT t.driver_id, t.period, sum(t.distance_m) AS distance_m, sum(t.trips) AS trips
  -- the trips added up per driver, vehicle and month first, then the vehicles selected (joining
  -- the vehicles to every trip of a year cost more than the scan); the vehicle is kept apart only
  -- when a selection needs it (else one group per driver and month: 108,752 groups of a year's
  -- trips at 5,000 vehicles cost twice the 148)
  FROM (
    SELECT
      t.driver_id,
      CASE WHEN $vehicle::BIGINT IS NOT NULL OR $department::VARCHAR IS NOT NULL THEN t.vehicle_id END AS vehicle_id,
      months.period,
      sum(t.trip_distance_m) AS distance_m,
      count(*) AS trips
    FROM trips AS t
    JOIN months ON t.start_time >= months.t0 AND t.start_time < months.t1
    WHERE t.account = $account
      -- the months' bounds again as constants: the scan then reads only the range's row groups
      AND t.start_time >= local_months_start($zone, $from_day)
      AND t.start_time < local_months_end($zone, $to_day)
    GROUP BY ALL
  ) AS t
  LEFT JOIN veh ON veh.vehicle_id = t.vehicle_id
  WHERE vehicle_selected(t.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
  GROUP BY ALL
),
bk AS (
  SELECT
    b.driver_id,
    months.period,
    count(*) AS bookings,
    count_known(booking_late(b.booking_status, b.booking_status_known)) AS late_returns
  FROM carpool_bookings AS b
  JOIN months ON b.start_time >= months.t0 AND b.start_time < months.t1
  LEFT JOIN veh ON veh.vehicle_id = b.vehicle_id
  WHERE b.account = $account
    AND vehicle_selected(b.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
  GROUP BY ALL
),
led AS (
  SELECT stream, window_start, window_end FROM ledger
  WHERE account = $account AND stream IN ('trips', 'bookings') AND status IN ('done', 'flagged', 'incomplete')
),
cov AS (
  SELECT
    months.period,
    EXISTS (SELECT 1 FROM led WHERE stream = 'trips' AND window_start < months.t1 AND window_end > months.t0)
      AS trips_synced,
    EXISTS (SELECT 1 FROM led WHERE stream = 'bookings' AND window_start < months.t1 AND window_end > months.t0)
      AS bookings_synced
  FROM months
),
ids AS (
  SELECT driver_id FROM driver_names($account)
  UNION SELECT driver_id FROM tr
  UNION SELECT driver_id FROM bk
  UNION SELECT NULL
),
month_m AS (SELECT period, sum(distance_m) AS distance_m FROM tr GROUP BY period),
names AS (SELECT * FROM driver_names($account)),
days AS (SELECT * FROM fleet_stream_month_coverage($account, $zone, $from_day, $to_day, $now, 'trips'))
SELECT
  ids.driver_id,
  CASE WHEN ids.driver_id IS NULL THEN 'no driver recorded' ELSE names.driver_name END AS driver_name,
  cov.period,
  CASE WHEN cov.trips_synced THEN round(coalesce(tr.distance_m, 0) / 1000.0, 3) END::DOUBLE AS distance_km,
  CASE WHEN cov.trips_synced THEN coalesce(tr.trips, 0) END::INTEGER AS trips,
  CASE WHEN cov.trips_synced THEN round(coalesce(tr.distance_m, 0) / nullif(month_m.distance_m, 0), 4) END::DOUBLE
    AS distance_share,
  CASE WHEN cov.bookings_synced THEN coalesce(bk.bookings, 0) END::INTEGER AS bookings,
  CASE WHEN cov.bookings_synced THEN if(bk.bookings IS NULL, 0, bk.late_returns) END::INTEGER AS late_returns,
  $zone::VARCHAR AS zone,
  fleet_coverage_label(coalesce(days.synced_days, 0), coalesce(days.pulled_days, 0), coalesce(days.range_days, 0))
    AS coverage,
  round(days.synced_days / nullif(days.range_days, 0), 4)::DOUBLE AS covered_share
FROM ids
CROSS JOIN cov
LEFT JOIN days ON days.period = cov.period
LEFT JOIN names ON names.driver_id = ids.driver_id
LEFT JOIN tr ON tr.driver_id IS NOT DISTINCT FROM ids.driver_id AND tr.period = cov.period
LEFT JOIN bk ON bk.driver_id IS NOT DISTINCT FROM ids.driver_id AND bk.period = cov.period
LEFT JOIN month_m ON month_m.period = cov.period
ORDER BY ids.driver_id IS NULL, names.driver_name NULLS LAST, ids.driver_id, cov.period;
