-- The fuel-efficiency rules (issue 27; docs/reports.md "fuel_efficiency"), once.
--
-- fuel_efficiency_blocks(acct, zone, from_day, to_day): a counter vehicle's odometer windows and
-- fuel-counter windows (the two models above) of the local months the range touches, joined into
-- blocks: a block is a run of windows of either stream that overlap one another (the two streams'
-- grids differ: months, local days, a day split off around a reset), so a block's litres and
-- kilometres cover the same span of time. A block counts when both streams cover its whole span
-- without a gap and every window of both counts (no odometer reset or tracker change, no counter
-- that went down or lacks a reading): only windows counted for both carry litres over km.
--   period   the local month the block starts in
--   counted  true when the block counts
--   km, litres  the odometer distance and counter litres of a counted block (NULL otherwise)
CREATE OR REPLACE TEMP MACRO fuel_efficiency_blocks(acct, zone, from_day, to_day) AS TABLE
  WITH w AS (
    SELECT vehicle_id, window_start, window_end, 'odometer' AS stream, counted, counted_m AS metres,
      NULL::DOUBLE AS litres
    FROM odometer_windows_classified(acct, zone, from_day, to_day)
    WHERE vehicle_id IN (SELECT vehicle_id FROM fuel_counter_vehicles(acct))
    UNION ALL
    SELECT vehicle_id, window_start, window_end, 'fuel', counted, NULL::DOUBLE, used_l
    FROM fuel_windows_classified(acct, zone, from_day, to_day)
    WHERE source = 'counter'
  ),
  reach AS (
    SELECT *, max(window_end) OVER (PARTITION BY vehicle_id ORDER BY window_start, window_end
      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reached
    FROM w
  ),
  numbered AS (
    SELECT *, sum(CASE WHEN reached IS NULL OR window_start >= reached THEN 1 ELSE 0 END)
      OVER (PARTITION BY vehicle_id ORDER BY window_start, window_end ROWS UNBOUNDED PRECEDING) AS block
    FROM reach
  ),
  b AS (
    SELECT
      vehicle_id,
      block,
      min(window_start) AS block_start,
      max(window_end) AS block_end,
      coalesce(sum(epoch(window_end) - epoch(window_start)) FILTER (WHERE stream = 'odometer'), 0) AS odometer_s,
      coalesce(sum(epoch(window_end) - epoch(window_start)) FILTER (WHERE stream = 'fuel'), 0) AS fuel_s,
      bool_and(counted) AS all_counted,
      sum(metres) AS metres,
      sum(litres) AS litres
    FROM numbered
    GROUP BY vehicle_id, block
  )
  SELECT
    vehicle_id,
    block_start,
    block_end,
    local_month(block_start, zone) AS period,
    c.ok AS counted,
    CASE WHEN c.ok THEN metres / 1000.0 END AS km,
    CASE WHEN c.ok THEN litres END AS litres
  FROM b, (SELECT all_counted
    AND abs(odometer_s - (epoch(block_end) - epoch(block_start))) < 1
    AND abs(fuel_s - (epoch(block_end) - epoch(block_start))) < 1 AS ok) AS c;

-- fuel_efficiency_trips(acct, zone, from_day, to_day): the trips of counted blocks with the
-- litres they carry: a block's litres shared among the trips that start in it by their trip
-- distance, litres × trip km ÷ the block's odometer km. Each trip so carries its block's L/100 km
-- (a trip that runs on past the block's end too), and the litres of distance no trip covers are
-- carried by nobody (never heaped on the trips there are). Per driver, L/100 km is the carried
-- litres over the trips' km. A block without odometer km carries nothing.
CREATE OR REPLACE TEMP MACRO fuel_efficiency_trips(acct, zone, from_day, to_day) AS TABLE
  WITH bt AS (
    SELECT
      b.vehicle_id, b.period, b.litres, b.km AS block_km, t.trip_id, t.driver_id,
      t.trip_distance_m / 1000.0 AS trip_km
    FROM fuel_efficiency_blocks(acct, zone, from_day, to_day) AS b
    JOIN trips AS t
      ON t.account = acct AND t.vehicle_id = b.vehicle_id
      AND t.start_time >= b.block_start AND t.start_time < b.block_end
    WHERE b.counted
  )
  SELECT *, CASE WHEN block_km > 0 THEN litres * trip_km / block_km END AS litres_carried
  FROM bt;

-- fuel_efficiency_outlier(l_per_100km, baseline, pct): true when a month's L/100 km is more than
-- pct percent above the baseline, false when not, NULL when either is unknown.
CREATE OR REPLACE TEMP MACRO fuel_efficiency_outlier(l_per_100km, baseline, pct) AS
  l_per_100km > baseline * (1 + pct / 100.0);
