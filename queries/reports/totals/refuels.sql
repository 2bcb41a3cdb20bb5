-- The refuels' rows per local day (queries/reports/refuels.sql: a row per fill of the range, in
-- fill-time order, so a local day's fills lie together) and their litres as each row rounds them,
-- for the same selection of vehicles: what the report's rows add up to day by day, read from the
-- fills alone (no trips: a row's driver does not change the count), so an unsorted page is read
-- from the days it falls on only (src/reports/registry.ts listTotals; test/reports/list-pages.int.test.ts).
-- rows: the day's fills; litres: their sum (NULL: none has one); litres_blank: those without.
SELECT
  strftime(timezone($zone, ff.fill_time), '%Y-%m-%d') AS day,
  count(*) AS rows,
  sum(round(ff.amount_l, 3)::DOUBLE) AS litres,
  count(*) FILTER (WHERE ff.amount_l IS NULL) AS litres_blank
FROM fuel_fills AS ff
CROSS JOIN local_days($zone, $from_day, $to_day) AS rng
LEFT JOIN vehicle_departments($account) AS veh ON veh.vehicle_id = ff.vehicle_id
WHERE ff.account = $account AND ff.fill_time >= rng.t0 AND ff.fill_time < rng.t1
  AND vehicle_selected(ff.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
GROUP BY 1
ORDER BY 1;
