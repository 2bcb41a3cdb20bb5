-- The logbook's count and its km / counted_km totals (src/reports/registry.ts listTotals;
-- test/reports/list-pages.int.test.ts), for the same selection of vehicles, from the trips' day
-- facts (queries/models/trip_day_facts.sql: each day's trips, the usable readings rounded as the
-- logbook shows them, the trips without one), not from every trip of the range. A usable reading
-- is counted unless its trip overlaps an odometer window left out (logbook_left_out_trips: read
-- from the trips near those windows only), so those are taken off counted_km and added to its
-- blanks. One row, no day: the page is read as it is.
-- rows: the trips; km, counted_km: their sums as logbook.sql rounds each (to the metre: a sum of
-- 3-decimal values); *_blank: those without.
WITH
f AS (
  SELECT
    coalesce(sum(f.trips), 0) AS rows,
    sum(f.km_rounded) AS km,
    coalesce(sum(f.unread_trips), 0) AS km_blank
  FROM trip_day_facts_in($account, $zone, $from_day, $to_day) AS f
  LEFT JOIN vehicle_departments($account) AS veh ON veh.vehicle_id = f.vehicle_id
  WHERE vehicle_selected(f.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
),
m AS (
  SELECT
    coalesce(sum(round(m.km, 3)), 0) AS km,
    count(*) AS trips
  FROM (
    SELECT lo.vehicle_id, logbook_reading_km(lo.start_odometer_m, lo.end_odometer_m) AS km
    FROM logbook_left_out_trips($account, $zone, $from_day, $to_day) AS lo
  ) AS m
  LEFT JOIN vehicle_departments($account) AS veh ON veh.vehicle_id = m.vehicle_id
  WHERE m.km IS NOT NULL
    AND vehicle_selected(m.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
)
SELECT
  NULL::VARCHAR AS day,
  f.rows::BIGINT AS rows,
  round(f.km, 3)::DOUBLE AS km,
  f.km_blank::BIGINT AS km_blank,
  CASE WHEN f.rows - f.km_blank - m.trips > 0 THEN round(f.km - m.km, 3) END::DOUBLE AS counted_km,
  (f.km_blank + m.trips)::BIGINT AS counted_km_blank
FROM f, m;
