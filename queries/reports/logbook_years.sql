-- The tax logbook's totals per vehicle × tax year (issue 27): every tax year the range touches,
-- whole (FLEETSYNC_TAX_YEAR_START; queries/models/logbook.sql). Business, private and unclassified
-- kilometres apart, each the sum of counted_km of the year's trips of that class (closing −
-- opening odometer of trips whose readings are trusted; a trip with a missing reading, one that
-- went down, or one on a day the odometer rule leaves out is counted in trips_not_counted, never
-- from trip_distance). odometer_km is the year's distance by the odometer rule (as mileage), and
-- business_share = business_km / odometer_km. Opening and closing odometer from the year's first
-- and last odometer windows, with the day of each reading; or, when a trip crosses the year's
-- start or end (or the end of the synced odometer data), that trip's closing reading and its id
-- (logbook_year_totals: a trip counts whole in the year it starts in).
-- Every vehicle × year is a row; coverage counts a vehicle-day synced when its odometer and the
-- fleet's trips both are (queries/models/coverage.sql): a year never synced is blank, never 0.
WITH
y AS (SELECT * FROM tax_years($tax_year_start, $from_day, $to_day)),
veh AS (SELECT * FROM vehicle_departments($account)),
-- the year's trips and odometer, one read of the trips (queries/models/logbook.sql)
yt AS (
  SELECT * FROM logbook_year_totals($account, $zone, $tax_year_start, $from_day, $to_day)
),
-- the ended days of the years, with the fleet's trips coverage (fleet_stream_day_coverage), and
-- per vehicle the days its odometer was synced too (the stored rows only: vehicle_stream_day_rows,
-- not every vehicle × day); every vehicle of the account has each year's days in range_days
td AS (
  SELECT day, synced, tax_year_first_day(day, $tax_year_start) AS year_first_day
  FROM fleet_stream_day_coverage(
      $account, $zone,
      tax_year_first_day($from_day, $tax_year_start),
      tax_year_last_day(tax_year_first_day($to_day, $tax_year_start)), $now, 'trips')
),
vs AS (
  SELECT c.vehicle_id, td.year_first_day, count(*) AS synced_days
  FROM vehicle_stream_day_rows(
      $account, $zone,
      tax_year_first_day($from_day, $tax_year_start),
      tax_year_last_day(tax_year_first_day($to_day, $tax_year_start)), ['odometer']) AS c
  JOIN td ON td.day = c.day
  WHERE c.synced AND td.synced
  GROUP BY ALL
),
cov AS (
  SELECT veh.vehicle_id, d.year_first_day, d.range_days, coalesce(vs.synced_days, 0) AS synced_days
  FROM veh
  CROSS JOIN (SELECT year_first_day, count(*) AS range_days FROM td GROUP BY ALL) AS d
  LEFT JOIN vs ON vs.vehicle_id = veh.vehicle_id AND vs.year_first_day = d.year_first_day
),
k AS (
  SELECT veh.vehicle_id, y.year_first_day FROM veh, y
  UNION
  SELECT vehicle_id, year_first_day FROM yt WHERE trips IS NOT NULL
),
r AS (
  SELECT
    k.vehicle_id,
    y.*,
    -- a year with no synced day is unknown (blank); a synced one without trips is 0
    CASE WHEN coalesce(cov.synced_days, 0) > 0 OR tt.trips IS NOT NULL THEN coalesce(tt.trips, 0) END AS trips,
    CASE WHEN coalesce(cov.synced_days, 0) > 0 OR tt.trips IS NOT NULL THEN coalesce(tt.business_km, 0) END AS business_km,
    CASE WHEN coalesce(cov.synced_days, 0) > 0 OR tt.trips IS NOT NULL THEN coalesce(tt.private_km, 0) END AS private_km,
    CASE WHEN coalesce(cov.synced_days, 0) > 0 OR tt.trips IS NOT NULL THEN coalesce(tt.unclassified_km, 0) END AS unclassified_km,
    CASE WHEN coalesce(cov.synced_days, 0) > 0 OR tt.trips IS NOT NULL THEN coalesce(tt.unclassified_trips, 0) END AS unclassified_trips,
    CASE WHEN coalesce(cov.synced_days, 0) > 0 OR tt.trips IS NOT NULL THEN coalesce(tt.trips_not_counted, 0) END AS trips_not_counted,
    tt.odometer_km,
    tt.left_out_windows,
    tt.opening_odometer_km,
    tt.opening_odometer_day,
    tt.closing_odometer_km,
    tt.closing_odometer_day,
    tt.opening_odometer_trip,
    tt.closing_odometer_trip,
    coalesce(cov.synced_days, 0) AS synced_days,
    coalesce(cov.range_days, 0) AS range_days
  FROM k
  JOIN y ON y.year_first_day = k.year_first_day
  LEFT JOIN yt AS tt ON tt.vehicle_id = k.vehicle_id AND tt.year_first_day = k.year_first_day
  LEFT JOIN cov ON cov.vehicle_id = k.vehicle_id AND cov.year_first_day = k.year_first_day
)
SELECT
  veh.registration,
  r.vehicle_id,
  veh.department,
  r.tax_year,
  strftime(r.year_first_day, '%Y-%m-%d') AS year_start,
  strftime(r.year_last_day, '%Y-%m-%d') AS year_end,
  r.trips::INTEGER AS trips,
  round(r.business_km, 3)::DOUBLE AS business_km,
  round(r.private_km, 3)::DOUBLE AS private_km,
  round(r.unclassified_km, 3)::DOUBLE AS unclassified_km,
  round(r.odometer_km, 3)::DOUBLE AS odometer_km,
  round(r.business_km / nullif(r.odometer_km, 0), 4)::DOUBLE AS business_share,
  r.unclassified_trips::INTEGER AS unclassified_trips,
  r.trips_not_counted::INTEGER AS trips_not_counted,
  coalesce(r.left_out_windows, 0)::INTEGER AS excluded_periods,
  round(r.opening_odometer_km, 3)::DOUBLE AS opening_odometer_km,
  strftime(r.opening_odometer_day, '%Y-%m-%d') AS opening_odometer_day,
  round(r.closing_odometer_km, 3)::DOUBLE AS closing_odometer_km,
  strftime(r.closing_odometer_day, '%Y-%m-%d') AS closing_odometer_day,
  r.opening_odometer_trip,
  r.closing_odometer_trip,
  $zone::VARCHAR AS zone,
  coverage_label(r.synced_days, r.range_days) AS coverage,
  round(r.synced_days / nullif(r.range_days, 0), 4)::DOUBLE AS covered_share
FROM r
LEFT JOIN veh ON veh.vehicle_id = r.vehicle_id
WHERE vehicle_selected(r.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY veh.registration, r.vehicle_id, r.year_first_day;
