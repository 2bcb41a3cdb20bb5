-- Coverage, the one rule (issue 12): which vehicle-days were synced, so every figure can say how
-- much of its grain it rests on and a period never synced is blank (unknown), never 0.
--
-- ended_local_days(zone, from_day, to_day, now_ts): the local days of [from_day, to_day] that have
-- ended by now_ts, with their bounds (d0, d1) as instants.
CREATE OR REPLACE TEMP MACRO ended_local_days(zone, from_day, to_day, now_ts) AS TABLE
  SELECT d::DATE AS day, timezone(zone, d) AS d0, timezone(zone, d + INTERVAL 1 DAY) AS d1
  FROM generate_series(from_day::DATE::TIMESTAMP, to_day::DATE::TIMESTAMP, INTERVAL 1 DAY) AS g(d)
  WHERE timezone(zone, d + INTERVAL 1 DAY) <= now_ts;

-- window_day_s(win_start, win_end, day_start, day_end): the seconds of the day a ledger window
-- covers; NULL without a window (a LEFT JOIN's miss: least/greatest skip NULL, so the CASE keeps a
-- day without a window from counting whole). whole_day(covered_s, day_start, day_end): the summed
-- seconds cover the whole day. The one rule of vehicle_streams_day_coverage and fleet_stream_day_coverage below.
CREATE OR REPLACE TEMP MACRO window_day_s(win_start, win_end, day_start, day_end) AS
  CASE WHEN win_start IS NOT NULL THEN
    greatest(0, epoch(least(win_end, day_end)) - epoch(greatest(win_start, day_start)))
  END;

CREATE OR REPLACE TEMP MACRO whole_day(covered_s, day_start, day_end) AS
  coalesce(covered_s, 0) >= epoch(day_end) - epoch(day_start);

-- vehicle_day_coverage(acct, zone, from_day, to_day, now_ts): every vehicle of the account
-- (vehicle_departments) × every local day of [from_day, to_day] that has ended by now_ts × the
-- streams a per-vehicle figure rests on (odometer, fuel_consumed, fuel_level; the per-vehicle
-- stream of fuel fills, fuel_fills, through vehicle_streams_day_coverage below), with
--   synced  true when done/flagged ledger windows of that stream and vehicle cover the whole day;
--   pulled  true when its data was pulled at all: done, flagged or incomplete windows (a day still
--           open for late data holds what the API had, and may grow) cover the whole day.
-- Today (not yet ended) and days to come are not rows: they are neither synced nor missing.
-- vehicle_streams_day_coverage(acct, zone, from_day, to_day, now_ts, streams): the same for the
-- per-vehicle streams of the list `streams`.
-- The coverage is kept per stream, scope and day in day_coverage (queries/schema/089) by the
-- writer of the ledger rows (ledger_day_coverage below); vehicle_streams_day_coverage_raw and
-- fleet_stream_day_coverage_raw compute the same from the ledger now (the comparison test puts
-- them in place: queries/sync/facts_use_raw.sql).
--
-- ledger_day_coverage(acct, zone, stream_name, scopes, from_day, to_day): per stream (NULL: every
-- stream), scope (NULL: every scope; else a list) and local day of [from_day, to_day] that a done,
-- flagged or incomplete ledger window overlaps: synced and pulled as above (window_day_s,
-- whole_day). What day_coverage stores.
CREATE OR REPLACE TEMP MACRO ledger_day_coverage(acct, zone, stream_name, scopes, from_day, to_day) AS TABLE
  WITH
  -- every day of the range, ended or not (a day still running may be pulled already)
  days AS (SELECT * FROM ended_local_days(zone, from_day, to_day, 'infinity'::TIMESTAMPTZ)),
  led AS (
    SELECT stream, scope, window_start, window_end, status IN ('done', 'flagged') AS settled
    FROM ledger
    WHERE account = acct AND status IN ('done', 'flagged', 'incomplete')
      AND (stream_name IS NULL OR stream = stream_name)
      AND (scopes IS NULL OR list_contains(scopes, scope))
      AND window_start < local_range_end(zone, to_day) AND window_end > local_range_start(zone, from_day)
  )
  SELECT l.stream, l.scope, days.day,
    whole_day(sum(window_day_s(l.window_start, l.window_end, days.d0, days.d1)) FILTER (WHERE l.settled), days.d0, days.d1)
      AS synced,
    whole_day(sum(window_day_s(l.window_start, l.window_end, days.d0, days.d1)), days.d0, days.d1) AS pulled
  FROM days
  JOIN led AS l ON l.window_start < days.d1 AND l.window_end > days.d0
  GROUP BY l.stream, l.scope, days.day, days.d0, days.d1;

-- vehicle_stream_cells(acct, zone, from_day, to_day, now_ts, streams): every vehicle × ended day
-- × stream of the list: the rows of vehicle_streams_day_coverage (and of its _raw twin).
CREATE OR REPLACE TEMP MACRO vehicle_stream_cells(acct, zone, from_day, to_day, now_ts, streams) AS TABLE
  SELECT v.vehicle_id, s.stream, days.day
  FROM vehicle_departments(acct) AS v, ended_local_days(zone, from_day, to_day, now_ts) AS days,
    (SELECT unnest(streams) AS stream) AS s;

CREATE OR REPLACE TEMP MACRO vehicle_streams_day_coverage(acct, zone, from_day, to_day, now_ts, streams) AS TABLE
  SELECT cells.*, coalesce(c.synced, false) AS synced, coalesce(c.pulled, false) AS pulled
  FROM vehicle_stream_cells(acct, zone, from_day, to_day, now_ts, streams) AS cells
  -- the range's stored rows of the streams only (not every stored row of the account: 7.7 M at
  -- 5,000 vehicles × 2 years), joined on the vehicle as a number (not its id as text per cell)
  LEFT JOIN vehicle_stream_day_rows(acct, zone, from_day, to_day, streams) AS c
    ON c.vehicle_id = cells.vehicle_id AND c.stream = cells.stream AND c.day = cells.day;

CREATE OR REPLACE TEMP MACRO vehicle_streams_day_coverage_raw(acct, zone, from_day, to_day, now_ts, streams) AS TABLE
  SELECT cells.*, coalesce(c.synced, false) AS synced, coalesce(c.pulled, false) AS pulled
  FROM vehicle_stream_cells(acct, zone, from_day, to_day, now_ts, streams) AS cells
  LEFT JOIN ledger_day_coverage(acct, zone, NULL, NULL, from_day, to_day) AS c
    ON c.stream = cells.stream AND c.scope = cells.vehicle_id::VARCHAR AND c.day = cells.day;

-- vehicle_stream_day_rows(acct, zone, from_day, to_day, streams): the stored coverage rows (day_coverage)
-- of the vehicles' streams of the list on the local days [from_day, to_day], ended or not: only
-- the vehicle-days a window overlaps (no row: neither synced nor pulled). What a figure that counts
-- synced days reads without building every vehicle × day first (issue 29: 1.8 M cells a year at
-- 5,000 vehicles). vehicle_stream_day_rows_raw: the same computed from the ledger now.
CREATE OR REPLACE TEMP MACRO vehicle_stream_day_rows(acct, zone, from_day, to_day, streams) AS TABLE
  SELECT try_cast(c.scope AS BIGINT) AS vehicle_id, c.stream, c.day, c.synced, c.pulled
  FROM day_coverage AS c
  WHERE c.account = acct AND list_contains(streams, c.stream) AND c.scope <> '*'
    AND c.day >= from_day::DATE AND c.day <= to_day::DATE;

CREATE OR REPLACE TEMP MACRO vehicle_stream_day_rows_raw(acct, zone, from_day, to_day, streams) AS TABLE
  SELECT try_cast(c.scope AS BIGINT) AS vehicle_id, c.stream, c.day, c.synced, c.pulled
  FROM ledger_day_coverage(acct, zone, NULL, NULL, from_day, to_day) AS c
  WHERE list_contains(streams, c.stream) AND c.scope <> '*';

CREATE OR REPLACE TEMP MACRO vehicle_day_coverage(acct, zone, from_day, to_day, now_ts) AS TABLE
  SELECT * FROM vehicle_streams_day_coverage(acct, zone, from_day, to_day, now_ts,
    ['odometer', 'fuel_consumed', 'fuel_level']);

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
    -- a day is synced (pulled) when one vehicle-day of the selection is: the stored rows alone
    -- answer that (a vehicle-day without a row is neither)
    SELECT c.day, bool_or(c.synced) AS synced, bool_or(c.pulled) AS pulled
    FROM vehicle_stream_day_rows(acct, zone, from_day, to_day, ['odometer']) AS c
    JOIN vehicle_departments(acct) AS v ON v.vehicle_id = c.vehicle_id
    WHERE vehicle_selected(c.vehicle_id, v.department, vehicle, department)
    GROUP BY c.day
  )
  SELECT days.day, coalesce(cov.synced, false) AS synced, coalesce(cov.pulled, false) AS pulled
  FROM ended_local_days(zone, from_day, to_day, now_ts) AS days
  LEFT JOIN cov ON cov.day = days.day;

-- open_days_touched(acct, zone, from_day, to_day, now_ts, vehicle, department): the local days of
-- [from_day, to_day] that have not ended by now_ts (today, days to come) and that a window
-- touched, per stream a fleet-wide figure rests on: the selection's odometer (vehicle / department
-- filters, NULL = all), the fleet's trips and toll visits. fleet_day_coverage counts ended days
-- only, so a range (a period) of today alone has no row there: its figures are what a sync
-- reaching now pulled so far when a window touched today ('partial'), and unknown (blank, never 0)
-- when none did (issue 12: a range of today after a sync that ended yesterday showed 0 trips).
-- A stored coverage row is written for every day a window overlaps (ledger_day_coverage).
CREATE OR REPLACE TEMP MACRO open_days_touched(acct, zone, from_day, to_day, now_ts, vehicle, department) AS TABLE
  WITH
  -- the range's days not ended: none or a few, joined first so the stored rows read are theirs
  -- only (a range of ended days reads none: not the range's rows again after fleet_day_coverage)
  open_days AS (
    SELECT a.day FROM ended_local_days(zone, from_day, to_day, 'infinity'::TIMESTAMPTZ) AS a
    ANTI JOIN ended_local_days(zone, from_day, to_day, now_ts) AS e ON e.day = a.day
  ),
  touched AS (
    SELECT c.day, c.stream
    FROM vehicle_stream_day_rows(acct, zone, from_day, to_day, ['odometer']) AS c
    JOIN open_days AS o ON o.day = c.day
    JOIN vehicle_departments(acct) AS v ON v.vehicle_id = c.vehicle_id
    WHERE vehicle_selected(c.vehicle_id, v.department, vehicle, department)
    UNION ALL
    SELECT c.day, c.stream
    FROM fleet_stream_day_rows(acct, zone, from_day, to_day, ['trips', 'visits']) AS c
    JOIN open_days AS o ON o.day = c.day
  )
  SELECT day, bool_or(stream = 'odometer') AS odometer, bool_or(stream = 'trips') AS trips,
    bool_or(stream = 'visits') AS visits
  FROM touched
  GROUP BY day;

-- fleet_days(acct, zone, from_day, to_day, now_ts, vehicle, department): what the fleet-wide
-- figures of kpis and trend rest on, per local day of [from_day, to_day]: the selection's odometer
-- (fleet_day_coverage; vehicle / department filters, NULL = all), the fleet's trips and toll visits
-- (fleet_stream_day_coverage). Every ended day is a row (ended): odometer_synced, and synced when
-- all three streams are settled; a day not ended is a row only when a window touched it
-- (open_days_touched), never synced. *_known: the stream's figure for the day is known — an ended
-- day's data was pulled, or a window touched a day not ended — so a range (a period) of today
-- alone shows what was pulled so far, and is blank (never 0) when nothing of it was.
CREATE OR REPLACE TEMP MACRO fleet_days(acct, zone, from_day, to_day, now_ts, vehicle, department) AS TABLE
  SELECT f.day, true AS ended, f.synced AS odometer_synced, f.synced AND t.synced AND v.synced AS synced,
    f.pulled AS odometer_known, t.pulled AS trips_known, v.pulled AS visits_known
  FROM fleet_day_coverage(acct, zone, from_day, to_day, now_ts, vehicle, department) AS f
  LEFT JOIN fleet_stream_day_coverage(acct, zone, from_day, to_day, now_ts, 'trips') AS t ON t.day = f.day
  LEFT JOIN fleet_stream_day_coverage(acct, zone, from_day, to_day, now_ts, 'visits') AS v ON v.day = f.day
  UNION ALL
  SELECT day, false, false, false, odometer, trips, visits
  FROM open_days_touched(acct, zone, from_day, to_day, now_ts, vehicle, department);

-- vehicle_month_coverage(acct, zone, from_day, to_day, now_ts, stream): per vehicle and local
-- month of the range (whole months), the month's ended days (range_days) and how many of them
-- the stream synced (synced_days).
-- Every vehicle × stream × month that has an ended day is a row; its synced days are counted from
-- the stored rows of its ended days (vehicle_stream_day_rows), not from a vehicle × day grid.
CREATE OR REPLACE TEMP MACRO vehicle_month_coverage(acct, zone, from_day, to_day, now_ts, stream_name) AS TABLE
  WITH
  streams AS (
    SELECT unnest(['odometer', 'fuel_consumed', 'fuel_level']) AS stream
  ),
  days AS (SELECT * FROM ended_local_days(zone, months_first_day(from_day), months_last_day(to_day), now_ts)),
  months AS (SELECT month_of_day(day) AS period, count(*) AS range_days FROM days GROUP BY period),
  synced AS (
    SELECT c.vehicle_id, c.stream, month_of_day(c.day) AS period, count(*) AS synced_days
    FROM vehicle_stream_day_rows(
      acct, zone, months_first_day(from_day), months_last_day(to_day),
      -- the caller's stream only (a mileage figure reads no fuel rows), or all three
      CASE WHEN stream_name IS NULL THEN ['odometer', 'fuel_consumed', 'fuel_level'] ELSE [stream_name] END
    ) AS c
    WHERE c.synced AND c.day IN (SELECT day FROM days)
    GROUP BY ALL
  )
  SELECT v.vehicle_id, s.stream, m.period, m.range_days, coalesce(y.synced_days, 0) AS synced_days
  FROM vehicle_departments(acct) AS v
  CROSS JOIN streams AS s
  CROSS JOIN months AS m
  LEFT JOIN synced AS y ON y.vehicle_id = v.vehicle_id AND y.stream = s.stream AND y.period = m.period
  WHERE stream_name IS NULL OR s.stream = stream_name;

-- fleet_stream_day_coverage(acct, zone, from_day, to_day, now_ts, stream_name): for a stream
-- synced fleet-wide (toll visits, trips, activity), every local day of [from_day, to_day] that
-- has ended, synced when its done/flagged windows cover the whole day, pulled when its
-- done/flagged/incomplete windows do (as vehicle_day_coverage, for the fleet scope `*`: a stream
-- synced fleet-wide records its windows under it).
CREATE OR REPLACE TEMP MACRO fleet_stream_day_coverage(acct, zone, from_day, to_day, now_ts, stream_name) AS TABLE
  SELECT days.day, coalesce(c.synced, false) AS synced, coalesce(c.pulled, false) AS pulled
  FROM ended_local_days(zone, from_day, to_day, now_ts) AS days
  LEFT JOIN day_coverage AS c
    ON c.account = acct AND c.stream = stream_name AND c.scope = '*' AND c.day = days.day;

-- fleet_stream_day_rows(acct, zone, from_day, to_day, streams): the stored coverage rows of the
-- fleet-wide streams of the list (scope '*') on the local days [from_day, to_day], ended or not:
-- only the days a window overlaps. fleet_stream_day_rows_raw: the same from the ledger now.
CREATE OR REPLACE TEMP MACRO fleet_stream_day_rows(acct, zone, from_day, to_day, streams) AS TABLE
  SELECT c.stream, c.day, c.synced, c.pulled
  FROM day_coverage AS c
  WHERE c.account = acct AND list_contains(streams, c.stream) AND c.scope = '*'
    AND c.day >= from_day::DATE AND c.day <= to_day::DATE;

CREATE OR REPLACE TEMP MACRO fleet_stream_day_rows_raw(acct, zone, from_day, to_day, streams) AS TABLE
  SELECT c.stream, c.day, c.synced, c.pulled
  FROM ledger_day_coverage(acct, zone, NULL, ['*'], from_day, to_day) AS c
  WHERE list_contains(streams, c.stream);

CREATE OR REPLACE TEMP MACRO fleet_stream_day_coverage_raw(acct, zone, from_day, to_day, now_ts, stream_name) AS TABLE
  SELECT days.day, coalesce(c.synced, false) AS synced, coalesce(c.pulled, false) AS pulled
  FROM ended_local_days(zone, from_day, to_day, now_ts) AS days
  LEFT JOIN ledger_day_coverage(acct, zone, stream_name, ['*'], from_day, to_day) AS c ON c.day = days.day;

-- vehicle_fuel_settled_days(acct, zone, from_day, to_day, base_stream): the vehicle-days of
-- [from_day, to_day], ended or not, on which the per-vehicle stream base_stream and the vehicle's
-- fuel stream (vehicle_fuel_sources: the counter or the level estimate; none for an electric
-- vehicle or one without fuel sensors: nothing more to wait for) are both settled: the part the
-- cost and the fills coverage below share. From the stored rows of the settled vehicle-days
-- (vehicle_stream_day_rows), not from a vehicle × day grid.
CREATE OR REPLACE TEMP MACRO vehicle_fuel_settled_days(acct, zone, from_day, to_day, base_stream) AS TABLE
  WITH settled AS (
    SELECT vehicle_id, stream, day
    FROM vehicle_stream_day_rows(acct, zone, from_day, to_day, [base_stream, 'fuel_consumed', 'fuel_level'])
    WHERE synced
  )
  SELECT b.vehicle_id, b.day
  FROM settled AS b
  LEFT JOIN vehicle_fuel_sources(acct) AS fs ON fs.vehicle_id = b.vehicle_id
  LEFT JOIN settled AS f ON f.vehicle_id = b.vehicle_id AND f.day = b.day AND f.stream = fs.fuel_stream
  WHERE b.stream = base_stream AND (f.stream IS NOT NULL OR fs.fuel_stream IS NULL);

-- vehicle_month_cost_coverage(acct, zone, from_day, to_day, now_ts): per vehicle and local month
-- of the range (whole months), the coverage of a cost figure (queries/models/prices.sql): a
-- vehicle-day counts as synced when every stream the vehicle's costs rest on is settled that day
-- — its odometer (distance), its fuel stream (vehicle_fuel_sources: the counter or the level
-- estimate; none for an electric vehicle or one without fuel sensors) and the fleet's toll visits.
-- range_days: the month's ended days; synced_days: of them, those synced for all three.
-- Counted from the stored rows of the synced vehicle-days (vehicle_stream_day_rows), not from a
-- vehicle × day grid: every vehicle × month with an ended day is a row.
CREATE OR REPLACE TEMP MACRO vehicle_month_cost_coverage(acct, zone, from_day, to_day, now_ts) AS TABLE
  WITH
  days AS (SELECT * FROM ended_local_days(zone, months_first_day(from_day), months_last_day(to_day), now_ts)),
  months AS (SELECT month_of_day(day) AS period, count(*) AS range_days FROM days GROUP BY period),
  visits AS (
    SELECT day FROM fleet_stream_day_coverage(acct, zone, months_first_day(from_day), months_last_day(to_day), now_ts, 'visits')
    WHERE synced
  ),
  settled AS (
    SELECT vehicle_id, stream, day
    FROM vehicle_stream_day_rows(
      acct, zone, months_first_day(from_day), months_last_day(to_day), ['odometer', 'fuel_consumed', 'fuel_level']
    )
    WHERE synced
  ),
  -- a vehicle-day is synced when its odometer and the fleet's toll visits are, and its fuel stream
  -- (none: nothing more to wait for). Counted per vehicle and month from each stream's settled days
  -- as bits (bit d: the month's day d), grouped by vehicle and month: matching the vehicle-days one
  -- by one held a year's 1.8 M rows in a hash table (issue 29: a cold call at 5,000 vehicles).
  stream_bits AS (
    SELECT vehicle_id, stream, month_of_day(day) AS period, bit_or(1::BIGINT << dayofmonth(day)) AS bits
    FROM settled
    GROUP BY ALL
  ),
  day_bits AS (
    SELECT vehicle_id, period,
      any_value(bits) FILTER (WHERE stream = 'odometer') AS odometer,
      any_value(bits) FILTER (WHERE stream = 'fuel_consumed') AS fuel_consumed,
      any_value(bits) FILTER (WHERE stream = 'fuel_level') AS fuel_level
    FROM stream_bits
    GROUP BY ALL
  ),
  visit_bits AS (
    SELECT month_of_day(day) AS period, bit_or(1::BIGINT << dayofmonth(day)) AS visits FROM visits GROUP BY ALL
  ),
  synced AS (
    SELECT b.vehicle_id, b.period,
      bit_count(b.odometer & vb.visits & CASE
        WHEN fs.fuel_stream IS NULL THEN -1::BIGINT
        WHEN fs.fuel_stream = 'fuel_consumed' THEN b.fuel_consumed
        WHEN fs.fuel_stream = 'fuel_level' THEN b.fuel_level
      END) AS synced_days
    FROM day_bits AS b
    JOIN visit_bits AS vb ON vb.period = b.period
    LEFT JOIN vehicle_fuel_sources(acct) AS fs ON fs.vehicle_id = b.vehicle_id
  )
  SELECT v.vehicle_id, m.period, m.range_days, coalesce(y.synced_days, 0) AS synced_days
  FROM vehicle_departments(acct) AS v
  CROSS JOIN months AS m
  LEFT JOIN synced AS y ON y.vehicle_id = v.vehicle_id AND y.period = m.period;

-- fleet_stream_month_coverage(acct, zone, from_day, to_day, now_ts, stream_name): per local month
-- the range touches (whole months), the month's ended days (range_days) and how many of them the
-- fleet-wide stream settled (synced_days) or pulled at all (pulled_days):
-- fleet_stream_day_coverage by month, for fleet_coverage_label.
CREATE OR REPLACE TEMP MACRO fleet_stream_month_coverage(acct, zone, from_day, to_day, now_ts, stream_name) AS TABLE
  SELECT month_of_day(day) AS period, count(*) AS range_days, count(*) FILTER (WHERE synced) AS synced_days,
    count(*) FILTER (WHERE pulled) AS pulled_days
  FROM fleet_stream_day_coverage(acct, zone, months_first_day(from_day), months_last_day(to_day), now_ts, stream_name)
  GROUP BY period;

-- vehicle_month_fills_coverage(acct, zone, from_day, to_day, now_ts): per vehicle and local month
-- of the range (whole months), the coverage of a litres-filled-vs-used figure
-- (fuel_reconciliation): a vehicle-day counts as synced when its fills (the fuel_fills stream,
-- pulled for vehicles with a level sensor) and its fuel stream (vehicle_fuel_sources: the counter
-- or the level estimate; none for a vehicle without one) are both settled that day.
-- range_days: the month's ended days; synced_days: of them, those synced for both.
-- Counted from the settled vehicle-days (vehicle_fuel_settled_days), not from a vehicle × day
-- grid: every vehicle × month with an ended day is a row.
CREATE OR REPLACE TEMP MACRO vehicle_month_fills_coverage(acct, zone, from_day, to_day, now_ts) AS TABLE
  WITH
  days AS (SELECT * FROM ended_local_days(zone, months_first_day(from_day), months_last_day(to_day), now_ts)),
  months AS (SELECT month_of_day(day) AS period, count(*) AS range_days FROM days GROUP BY period),
  -- a vehicle-day is synced when its fills and its fuel stream are (vehicle_fuel_settled_days)
  synced AS (
    SELECT vehicle_id, month_of_day(day) AS period, count(*) AS synced_days
    FROM vehicle_fuel_settled_days(acct, zone, months_first_day(from_day), months_last_day(to_day), 'fuel_fills')
    WHERE day IN (SELECT day FROM days)
    GROUP BY ALL
  )
  SELECT v.vehicle_id, m.period, m.range_days, coalesce(y.synced_days, 0) AS synced_days
  FROM vehicle_departments(acct) AS v
  CROSS JOIN months AS m
  LEFT JOIN synced AS y ON y.vehicle_id = v.vehicle_id AND y.period = m.period;
