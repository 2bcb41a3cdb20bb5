-- The fuel-efficiency rules (issue 27; docs/reports.md "fuel_efficiency"), once.
--
-- fuel_efficiency_blocks(acct, zone, from_day, to_day): a counter vehicle's odometer windows and
-- fuel-counter windows (the two models above), joined into blocks: a block is a run of windows of
-- either stream that overlap one another (the two streams' grids differ: months, local days, a day
-- split off around a reset), so a block's litres and kilometres cover the same span of time. A
-- block counts when both streams cover its whole span without a gap and every window of both
-- counts (no odometer reset or tracker change, no counter that went down or lacks a reading): only
-- windows counted for both carry litres over km.
-- The blocks are built over all the vehicle's windows, whatever the range (issue 27 item 3): a
-- block, and so a month's figure, never depends on the range asked; the range only selects the
-- blocks that start in the local months it touches. Windows that start at the same instant are
-- taken together (a block boundary falls only where every earlier window has ended), so the
-- blocks never depend on the order ties are read in.
--   period   the local month the block starts in
--   counted  true when the block counts
--   km, litres  the odometer distance and counter litres of a counted block (NULL otherwise)
CREATE OR REPLACE TEMP MACRO fuel_efficiency_blocks(acct, zone, from_day, to_day) AS TABLE
  WITH w AS (
    SELECT vehicle_id, window_start, window_end, 'odometer' AS stream, counted, counted_m AS metres,
      NULL::DOUBLE AS litres
    FROM odometer_windows_classified(acct, zone, DATE '1970-01-01', DATE '2999-12-31')
    WHERE vehicle_id IN (SELECT vehicle_id FROM fuel_counter_vehicles(acct))
    UNION ALL
    SELECT vehicle_id, window_start, window_end, 'fuel', counted, NULL::DOUBLE, used_l
    FROM fuel_windows_classified(acct, zone, DATE '1970-01-01', DATE '2999-12-31')
    WHERE source = 'counter'
  ),
  starts AS (
    SELECT vehicle_id, window_start, max(window_end) AS window_end FROM w GROUP BY ALL
  ),
  reach AS (
    SELECT *, max(window_end) OVER (PARTITION BY vehicle_id ORDER BY window_start
      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reached
    FROM starts
  ),
  numbered AS (
    SELECT vehicle_id, window_start,
      sum(CASE WHEN reached IS NULL OR window_start >= reached THEN 1 ELSE 0 END)
        OVER (PARTITION BY vehicle_id ORDER BY window_start ROWS UNBOUNDED PRECEDING) AS block
    FROM reach
  ),
  b AS (
    SELECT
      w.vehicle_id,
      n.block,
      min(w.window_start) AS block_start,
      max(w.window_end) AS block_end,
      coalesce(sum(epoch(w.window_end) - epoch(w.window_start)) FILTER (WHERE w.stream = 'odometer'), 0)
        AS odometer_s,
      coalesce(sum(epoch(w.window_end) - epoch(w.window_start)) FILTER (WHERE w.stream = 'fuel'), 0) AS fuel_s,
      bool_and(w.counted) AS all_counted,
      sum(w.metres) AS metres,
      sum(w.litres) AS litres
    FROM w
    JOIN numbered AS n ON n.vehicle_id = w.vehicle_id AND n.window_start = w.window_start
    GROUP BY w.vehicle_id, n.block
  )
  SELECT
    vehicle_id,
    block_start,
    block_end,
    local_month(block_start, zone) AS period,
    c.ok AS counted,
    CASE WHEN c.ok THEN metres / 1000.0 END AS km,
    CASE WHEN c.ok THEN litres END AS litres
  FROM b, local_months(zone, from_day, to_day) AS m, (SELECT all_counted
    AND abs(odometer_s - (epoch(block_end) - epoch(block_start))) < 1
    AND abs(fuel_s - (epoch(block_end) - epoch(block_start))) < 1 AS ok) AS c
  WHERE b.block_start >= m.t0 AND b.block_start < m.t1;

-- fuel_efficiency_driver_months(acct, zone, from_day, to_day, now_ts, vehicle, department): per
-- vehicle, local month and driver (NULL: the trips without a driver id), the trips of counted
-- blocks with the litres they carry, and the coverage of the driver-month's figure.
-- The litres: a block's litres shared among the trips that start in it by their trip distance,
-- litres × trip km ÷ the block's odometer km, so each trip carries its block's L/100 km and the
-- litres of distance no trip covers are carried by nobody (never heaped on the trips there are).
-- The trips of a vehicle-month never carry more than the vehicle's counted litres of that month
-- (issue 27 item 3: the drivers' litres are shares of the vehicles'): where trips that run on past
-- their block's end (or trip distance measured longer than the odometer's) would carry more, each
-- trip of that vehicle-month carries its share and its km scaled down by one factor, the month's
-- counted litres ÷ what its trips would carry, so its L/100 km stays its block's. A share is linear
-- in the trip's km, so the trips of a block are added up per driver first and shared once (issue
-- 29: not one row per trip through the share's window).
--   trips          the driver's trips that start in the block
--   trip_km        their distance (as the API sends it)
--   counted_km     the part of it that carries litres (trip_km, or less where scaled down)
--   litres_carried their litres; per driver, L/100 km is litres_carried over counted_km
-- A block without odometer km carries nothing.
-- The coverage (range_days, synced_days, the same on every row of a driver-month): of the month's
-- ended local days (whole months), those on which the fleet's trips and, of every vehicle with a
-- fuel counter that the driver drove in the month (a trip of theirs starts in it; vehicle /
-- department filters, NULL = all), the odometer and the fuel counter (fuel_consumed) are settled.
-- Counted from the stored rows of the settled vehicle-days (vehicle_stream_day_rows): the days a
-- driven vehicle missed, taken off the trips' settled days, not every driver's vehicles × days
-- (issue 29: the drivers each drive hundreds of vehicles).
-- Both take the trips from their day facts (trip_day_facts: per vehicle, local day and driver),
-- not from the trips (issue 29): a block is a run of odometer and counter windows, which are
-- local days or months, so the days it covers whole hold only trips that start in it. Only the
-- days a block starts or ends inside (a day split off around a reset or a tracker change) have
-- their trips read, each looked up in its block.
CREATE OR REPLACE TEMP MACRO fuel_efficiency_driver_months(acct, zone, from_day, to_day, now_ts, vehicle, department) AS TABLE
  WITH blocks AS (
    SELECT *, sum(litres) OVER (PARTITION BY vehicle_id, period) AS month_litres
    FROM fuel_efficiency_blocks(acct, zone, from_day, to_day)
    WHERE counted
  ),
  -- a counted block's local days: those it covers whole [first_day, last_day], and those its
  -- start or end falls inside (a day split off around a reset or a tracker change)
  spans AS (
    SELECT vehicle_id, block_start, block_end, timezone(zone, block_start) AS ls, timezone(zone, block_end) AS le
    FROM blocks
  ),
  whole AS (
    SELECT * FROM (
      SELECT vehicle_id, block_start,
        ls::DATE + CASE WHEN ls::TIME = TIME '00:00' THEN 0 ELSE 1 END AS first_day, le::DATE - 1 AS last_day
      FROM spans
    )
    WHERE first_day <= last_day
  ),
  whole_weeks AS (
    SELECT *, unnest(range((first_day - DATE '1970-01-05') // 7, (last_day - DATE '1970-01-05') // 7 + 1)) AS week
    FROM whole
  ),
  -- the split days, each listed once per UTC day it overlaps, so a trip is looked up by vehicle
  -- and UTC day
  split AS (
    SELECT vehicle_id, t0, t1, unnest(range(epoch_us(t0) // 86400000000, (epoch_us(t1) - 1) // 86400000000 + 1)) AS utc_day
    FROM (
      SELECT vehicle_id, local_range_start(zone, day) AS t0, local_range_end(zone, day) AS t1
      FROM (
        SELECT vehicle_id, ls::DATE AS day FROM spans WHERE ls::TIME <> TIME '00:00'
        UNION
        SELECT vehicle_id, le::DATE FROM spans WHERE le::TIME <> TIME '00:00'
      )
    )
  ),
  -- the blocks once per UTC week they overlap (the lookup of a split day's trips)
  block_weeks AS (
    SELECT vehicle_id, block_start, block_end,
      unnest(range(epoch_us(block_start) // 604800000000, epoch_us(block_end) // 604800000000 + 1)) AS week
    FROM blocks
  ),
  -- the local months a block covers whole (every trip of the vehicle's month is in it) and those
  -- it covers in part
  block_months AS (
    SELECT vehicle_id, block_start, month, first_day <= month AND last_day >= last_day(month) AS whole_month
    FROM (
      SELECT *, unnest(month_starts(first_day, last_day)) AS month
      FROM whole
    )
  ),
  -- the trips from the range's first month on (the trips' day facts; issue 29: the trips are not
  -- read per call), per vehicle, driver and local month
  days AS (
    SELECT vehicle_id, day, months_first_day(day) AS month, driver_id, trips, trip_distance_m
    FROM trip_day_facts_in(acct, zone, months_first_day(from_day), DATE '2999-12-31')
  ),
  dm AS (
    SELECT vehicle_id, driver_id, month, sum(trips) AS trips, sum(trip_distance_m) AS trip_m
    FROM days
    GROUP BY ALL
  ),
  -- per vehicle, counted block and driver, the trips that start in the block: a month the block
  -- covers whole from the month's sums, a month a block covers in part from its days' facts (the
  -- days a block covers whole), a split day from its trips, each looked up in its blocks
  bt AS (
    SELECT vehicle_id, block_start, driver_id, sum(trips) AS trips, sum(trip_m) AS trip_m
    FROM (
      SELECT m.vehicle_id, b.block_start, m.driver_id, m.trips, m.trip_m
      FROM dm AS m
      JOIN block_months AS b ON b.vehicle_id = m.vehicle_id AND b.month = m.month AND b.whole_month
      UNION ALL
      SELECT d.vehicle_id, w.block_start, d.driver_id, d.trips, d.trip_distance_m
      FROM days AS d
      SEMI JOIN (SELECT DISTINCT vehicle_id, month FROM block_months WHERE NOT whole_month) AS p
        ON p.vehicle_id = d.vehicle_id AND p.month = d.month
      JOIN whole_weeks AS w ON w.vehicle_id = d.vehicle_id AND w.week = (d.day - DATE '1970-01-05') // 7
        AND d.day >= w.first_day AND d.day <= w.last_day
      UNION ALL
      SELECT t.vehicle_id, b.block_start, t.driver_id, 1, t.trip_distance_m
      FROM trips AS t
      JOIN split AS s ON s.vehicle_id = t.vehicle_id AND s.utc_day = epoch_us(t.start_time) // 86400000000
        AND t.start_time >= s.t0 AND t.start_time < s.t1
      JOIN block_weeks AS b ON b.vehicle_id = t.vehicle_id AND b.week = epoch_us(t.start_time) // 604800000000
        AND t.start_time >= b.block_start AND t.start_time < b.block_end
      WHERE t.account = acct AND t.start_time >= local_months_start(zone, from_day)
    )
    GROUP BY ALL
  ),
  shared AS (
    SELECT
      b.vehicle_id, b.period, bt.driver_id, bt.trips, bt.trip_m / 1000.0 AS trip_km, b.month_litres,
      CASE WHEN b.km > 0 THEN b.litres * bt.trip_m / 1000.0 / b.km END AS share
    FROM bt
    JOIN blocks AS b ON b.vehicle_id = bt.vehicle_id AND b.block_start = bt.block_start
  ),
  scaled AS (
    SELECT *, least(1, month_litres / nullif(sum(share) OVER (PARTITION BY vehicle_id, period), 0)) AS f
    FROM shared
  ),
  -- the counter vehicles each driver drove per month
  dv AS (
    SELECT t.driver_id, t.period, t.vehicle_id
    FROM (
      SELECT driver_id, month_of_day(month) AS period, vehicle_id
      FROM (SELECT DISTINCT driver_id, month, vehicle_id FROM dm WHERE month <= months_last_day(to_day))
    ) AS t
    JOIN vehicle_fuel_sources(acct) AS fs ON fs.vehicle_id = t.vehicle_id AND fs.fuel_stream = 'fuel_consumed'
    LEFT JOIN vehicle_departments(acct) AS v ON v.vehicle_id = t.vehicle_id
    WHERE vehicle_selected(t.vehicle_id, v.department, vehicle, department)
  ),
  -- the months' ended days, and whether the fleet's trips settled each
  tr AS (
    SELECT day, month_of_day(day) AS period, months_first_day(day) AS month, synced
    FROM fleet_stream_day_coverage(acct, zone, months_first_day(from_day), months_last_day(to_day), now_ts, 'trips')
  ),
  months AS (
    SELECT period, any_value(month) AS month, count(*) AS range_days, count(*) FILTER (WHERE synced) AS trips_days
    FROM tr
    GROUP BY period
  ),
  -- the settled rows of the vehicles' odometer and fuel counter on the ended days (the stored
  -- rows: no row, not settled; odometer: false for the counter), and per vehicle-month how many
  -- days each stream settled
  settled AS (
    SELECT r.vehicle_id, r.stream = 'odometer' AS odometer, r.day, tr.month
    FROM vehicle_stream_day_rows(acct, zone, months_first_day(from_day), months_last_day(to_day),
      ['odometer', 'fuel_consumed']) AS r
    JOIN tr ON tr.day = r.day
    WHERE r.synced
  ),
  settled_months AS (
    SELECT vehicle_id, month, count(*) FILTER (WHERE odometer) AS odometer_days,
      count(*) FILTER (WHERE NOT odometer) AS counter_days
    FROM settled
    GROUP BY vehicle_id, month
  ),
  -- the driven vehicle-months with a day not settled for both streams; their days settled for both
  partial AS (
    SELECT vm.vehicle_id, vm.period, m.month
    FROM (SELECT DISTINCT vehicle_id, period FROM dv) AS vm
    JOIN months AS m ON m.period = vm.period
    LEFT JOIN settled_months AS s ON s.vehicle_id = vm.vehicle_id AND s.month = m.month
    WHERE coalesce(s.odometer_days, 0) < m.range_days OR coalesce(s.counter_days, 0) < m.range_days
  ),
  both_settled AS (
    SELECT s.vehicle_id, s.day
    FROM settled AS s
    SEMI JOIN partial AS p ON p.vehicle_id = s.vehicle_id AND p.month = s.month
    GROUP BY s.vehicle_id, s.day
    HAVING bool_or(s.odometer) AND bool_or(NOT s.odometer)
  ),
  -- the days a driven vehicle did not settle
  gaps AS (
    SELECT p.vehicle_id, p.period, tr.day
    FROM partial AS p
    JOIN tr ON tr.period = p.period
    ANTI JOIN both_settled AS b ON b.vehicle_id = p.vehicle_id AND b.day = tr.day
  ),
  -- per driver-month, the trips' settled days on which a vehicle of theirs did not settle
  missed AS (
    SELECT g.driver_id, g.period, count(*) AS days
    FROM (SELECT DISTINCT dv.driver_id, dv.period, gaps.day
      FROM dv JOIN gaps ON gaps.vehicle_id = dv.vehicle_id AND gaps.period = dv.period) AS g
    JOIN tr ON tr.day = g.day
    WHERE tr.synced
    GROUP BY ALL
  ),
  cov AS (
    SELECT d.driver_id, d.period, m.range_days, m.trips_days - coalesce(x.days, 0) AS synced_days
    FROM (SELECT DISTINCT driver_id, period FROM dv) AS d
    JOIN months AS m ON m.period = d.period
    LEFT JOIN missed AS x ON x.driver_id IS NOT DISTINCT FROM d.driver_id AND x.period = d.period
  )
  SELECT s.vehicle_id, s.period, s.driver_id, s.trips, s.trip_km,
    coalesce(s.f, 1) * s.trip_km AS counted_km,
    coalesce(s.f, 1) * s.share AS litres_carried,
    c.range_days, c.synced_days
  FROM scaled AS s
  LEFT JOIN cov AS c ON c.driver_id IS NOT DISTINCT FROM s.driver_id AND c.period = s.period;

-- fuel_efficiency_outlier(l_per_100km, baseline, pct): true when a month's L/100 km is more than
-- pct percent above the baseline, false when not, NULL when either is unknown.
CREATE OR REPLACE TEMP MACRO fuel_efficiency_outlier(l_per_100km, baseline, pct) AS
  l_per_100km > baseline * (1 + pct / 100.0);
