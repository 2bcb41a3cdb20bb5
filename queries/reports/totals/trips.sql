-- The trips report's count and distance total in one narrow scan of the range's trips (the
-- columns the totals read only: no lookups, no formatting), for the same selection of vehicles
-- (src/reports/registry.ts listTotals; test/reports/list-pages.int.test.ts). Not from the daily
-- facts: they keep each day's trip distance summed, and the report sums each trip's rounded to
-- the metre (distance_km). One row, no day: a page of trips is read as it is (a top-N in start
-- order). rows: the trips; distance_km: their sum; distance_km_blank: those without one.
SELECT
  NULL::VARCHAR AS day,
  count(*) AS rows,
  sum(round(t.trip_distance_m / 1000.0, 3))::DOUBLE AS distance_km,
  count(*) FILTER (WHERE t.trip_distance_m IS NULL) AS distance_km_blank
FROM trips AS t
LEFT JOIN vehicle_departments($account) AS veh ON veh.vehicle_id = t.vehicle_id
WHERE t.account = $account
  AND t.start_time >= local_range_start($zone, $from_day)
  AND t.start_time < local_range_end($zone, $to_day)
  AND vehicle_selected(t.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR);
