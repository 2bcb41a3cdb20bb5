-- utilisation_days' rows per vehicle and the sums of its totalled columns (each figure rounded as
-- queries/reports/utilisation_days.sql rounds it; *_blank: the rows without one), in its order
-- (registration, then vehicle), for the same selection of vehicles: the model's rows
-- (activity_days) counted and summed, none formatted. An unsorted page is then read vehicle by
-- vehicle, only the vehicles it falls on (src/reports/registry.ts vehiclePages;
-- test/reports/aggregate-page.test.ts).
SELECT
  d.vehicle_id,
  d.registration,
  count(*) AS rows,
  sum(round(d.driving_s / 3600.0, 3)::DOUBLE) AS driving_h,
  count(*) FILTER (WHERE d.driving_s IS NULL) AS driving_h_blank,
  sum(round(d.idle_s / 3600.0, 3)::DOUBLE) AS idle_h,
  count(*) FILTER (WHERE d.idle_s IS NULL) AS idle_h_blank,
  sum(round(d.after_hours_s / 3600.0, 3)::DOUBLE) AS after_hours_h,
  count(*) FILTER (WHERE d.after_hours_s IS NULL) AS after_hours_h_blank
FROM activity_days($account, $zone, $from_day, $to_day) AS d
WHERE vehicle_selected(d.vehicle_id, d.department, $vehicle::BIGINT, $department::VARCHAR)
GROUP BY d.vehicle_id, d.registration
ORDER BY d.registration, d.vehicle_id;
