-- Coverage, the one rule (issue 12): which vehicle-days were synced, so every figure can say how
-- much of its grain it rests on and a period never synced is blank (unknown), never 0.
--
-- ended_local_days(zone, from_day, to_day, now_ts): the local days of [from_day, to_day] that have
-- ended by now_ts, with their bounds (d0, d1) as instants.
CREATE OR REPLACE TEMP MACRO ended_local_days(zone, from_day, to_day, now_ts) AS TABLE
  SELECT d::DATE AS day, timezone(zone, d) AS d0, timezone(zone, d + INTERVAL 1 DAY) AS d1
  FROM generate_series(from_day::DATE::TIMESTAMP, to_day::DATE::TIMESTAMP, INTERVAL 1 DAY) AS g(d)
  WHERE timezone(zone, d + INTERVAL 1 DAY) <= now_ts;

-- vehicle_day_coverage(acct, zone, from_day, to_day, now_ts): every vehicle of the account
-- (vehicle_departments) × every local day of [from_day, to_day] that has ended by now_ts × the
-- streams a per-vehicle figure rests on (odometer, fuel_consumed, fuel_level), with
--   synced  true when done/flagged ledger windows of that stream and vehicle cover the whole day;
--   pulled  true when its data was pulled at all: done, flagged or incomplete windows (a day still
--           open for late data holds what the API had, and may grow) cover the whole day.
-- Today (not yet ended) and days to come are not rows: they are neither synced nor missing.
CREATE OR REPLACE TEMP MACRO vehicle_day_coverage(acct, zone, from_day, to_day, now_ts) AS TABLE
  WITH
  days AS (SELECT * FROM ended_local_days(zone, from_day, to_day, now_ts)),
  cells AS (
    SELECT v.vehicle_id, s.stream, days.day, days.d0, days.d1
    FROM vehicle_departments(acct) AS v, days,
      (VALUES ('odometer'), ('fuel_consumed'), ('fuel_level')) AS s(stream)
  ),
  led AS (
    SELECT stream, scope, window_start, window_end, status IN ('done', 'flagged') AS settled
    FROM ledger
    WHERE account = acct AND status IN ('done', 'flagged', 'incomplete')
      AND stream IN ('odometer', 'fuel_consumed', 'fuel_level')
  ),
  covered AS (
    -- seconds of the day each window covers (NULL without a window: least/greatest skip NULL, so
    -- the CASE keeps a day without a window from counting whole)
    SELECT cells.*, l.settled,
      CASE WHEN l.window_start IS NOT NULL THEN
        greatest(0, epoch(least(l.window_end, cells.d1)) - epoch(greatest(l.window_start, cells.d0)))
      END AS s
    FROM cells
    LEFT JOIN led AS l
      ON l.stream = cells.stream AND l.scope = cells.vehicle_id::VARCHAR
      AND l.window_start < cells.d1 AND l.window_end > cells.d0
  )
  SELECT
    vehicle_id,
    stream,
    day,
    coalesce(sum(s) FILTER (WHERE settled), 0) >= epoch(d1) - epoch(d0) AS synced,
    coalesce(sum(s), 0) >= epoch(d1) - epoch(d0) AS pulled
  FROM covered
  GROUP BY vehicle_id, stream, day, d0, d1;

-- fleet_coverage_label(synced_days, pulled_days, range_days): 'complete' when every day of the
-- grain that has ended was synced (settled), 'not_synced' when no day's data was pulled at all,
-- else 'partial' (some days missing, or still open for late data). A grain with no ended day yet
-- (today only) is 'partial': it is still open.
CREATE OR REPLACE TEMP MACRO fleet_coverage_label(synced_days, pulled_days, range_days) AS
  CASE
    WHEN range_days > 0 AND pulled_days = 0 THEN 'not_synced'
    WHEN range_days > 0 AND synced_days >= range_days THEN 'complete'
    ELSE 'partial'
  END;

-- coverage_label(synced_days, range_days): the same where only settled days count (the
-- per-vehicle month grains of mileage and fuel).
CREATE OR REPLACE TEMP MACRO coverage_label(synced_days, range_days) AS
  fleet_coverage_label(synced_days, synced_days, range_days);

-- fleet_day_coverage(acct, zone, from_day, to_day, now_ts, vehicle, department): the fleet-wide
-- view for kpis and trend: every local day of the range that has ended, synced when a sync
-- covered it: the odometer stream (the basis of mileage and of the coverage calendar) is synced
-- that day for a vehicle of the selection (vehicle / department filters, NULL = all). A sync pulls
-- every vehicle for its range, so this is "the days a sync covered"; a vehicle whose windows
-- failed inside it is the quality page's and complete_through's business, not a blank figure.
-- Every ended day of the range is a row, also when no vehicle is known (an account never synced,
-- or a selection without vehicles): then no day is synced and every figure is blank, never 0.
-- pulled: the day's data was pulled (settled or still open for late data): its figures are
-- shown, and counted, while `synced` (settled) stays false until the window settles.
CREATE OR REPLACE TEMP MACRO fleet_day_coverage(acct, zone, from_day, to_day, now_ts, vehicle, department) AS TABLE
  WITH cov AS (
    SELECT c.day, bool_or(c.synced) AS synced, bool_or(c.pulled) AS pulled
    FROM vehicle_day_coverage(acct, zone, from_day, to_day, now_ts) AS c
    JOIN vehicle_departments(acct) AS v ON v.vehicle_id = c.vehicle_id
    WHERE c.stream = 'odometer'
      AND (vehicle IS NULL OR c.vehicle_id = vehicle)
      AND (department IS NULL OR v.department = department)
    GROUP BY c.day
  )
  SELECT days.day, coalesce(cov.synced, false) AS synced, coalesce(cov.pulled, false) AS pulled
  FROM ended_local_days(zone, from_day, to_day, now_ts) AS days
  LEFT JOIN cov ON cov.day = days.day;

-- vehicle_month_coverage(acct, zone, from_day, to_day, now_ts, stream): per vehicle and local
-- month of the range (whole months), the month's ended days (range_days) and how many of them
-- the stream synced (synced_days).
CREATE OR REPLACE TEMP MACRO vehicle_month_coverage(acct, zone, from_day, to_day, now_ts, stream_name) AS TABLE
  SELECT vehicle_id, stream, month_of_day(day) AS period,
    count(*) AS range_days, count(*) FILTER (WHERE synced) AS synced_days
  FROM vehicle_day_coverage(acct, zone, months_first_day(from_day), months_last_day(to_day), now_ts)
  WHERE stream_name IS NULL OR stream = stream_name
  GROUP BY vehicle_id, stream, period;

-- trips_day_coverage(acct, zone, from_day, to_day, now_ts): every local day of the range that has
-- ended, synced when settled (done/flagged) trips windows cover it whole, pulled when trips
-- windows (incomplete ones too) do. The trips stream is fleet-wide: one answer for every vehicle.
-- The logbook (logbook_years.sql) counts a vehicle-day synced when this and the vehicle's
-- odometer (vehicle_day_coverage) both are.
CREATE OR REPLACE TEMP MACRO trips_day_coverage(acct, zone, from_day, to_day, now_ts) AS TABLE
  WITH
  led AS (
    SELECT window_start, window_end, status IN ('done', 'flagged') AS settled
    FROM ledger
    WHERE account = acct AND stream = 'trips' AND status IN ('done', 'flagged', 'incomplete')
  ),
  covered AS (
    SELECT days.day, days.d0, days.d1, l.settled,
      CASE WHEN l.window_start IS NOT NULL THEN
        greatest(0, epoch(least(l.window_end, days.d1)) - epoch(greatest(l.window_start, days.d0)))
      END AS s
    FROM ended_local_days(zone, from_day, to_day, now_ts) AS days
    LEFT JOIN led AS l ON l.window_start < days.d1 AND l.window_end > days.d0
  )
  SELECT
    day,
    coalesce(sum(s) FILTER (WHERE settled), 0) >= epoch(d1) - epoch(d0) AS synced,
    coalesce(sum(s), 0) >= epoch(d1) - epoch(d0) AS pulled
  FROM covered
  GROUP BY day, d0, d1;
