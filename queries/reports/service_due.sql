-- Service due per vehicle, as of now (queries/models/service_due.sql holds the rule: the plan's
-- interval, the last service, the km counted since by the odometer rule, the forecast from the
-- vehicle's own recent distance, the status and its reason). The range does not apply: the list
-- is always today's. Blank = unknown, never 0.
SELECT
  d.registration,
  d.vehicle_id,
  d.department,
  d.status,
  d.reason,
  CASE WHEN d.every_km IS NULL THEN d.next_service_day
    WHEN d.forecast_day IS NOT NULL THEN least(d.forecast_day, d.next_service_day)
  END::VARCHAR AS due_day,
  round(d.km_remaining, 1)::DOUBLE AS km_remaining,
  (d.service_odometer_km + d.every_km)::DOUBLE AS next_service_km,
  d.days_remaining::INTEGER AS days_remaining,
  d.next_service_day::VARCHAR AS next_service_day,
  d.forecast_day::VARCHAR AS forecast_day,
  round(d.km_per_day, 1)::DOUBLE AS km_per_day,
  round(d.basis_days, 1)::DOUBLE AS forecast_basis_days,
  round(d.since_m / 1000.0, 1)::DOUBLE AS km_since_service,
  round(d.service_odometer_km + d.since_m / 1000.0, 1)::DOUBLE AS odometer_km,
  iso_local(d.as_of, $zone) AS odometer_as_of,
  d.excluded::INTEGER AS excluded_periods,
  d.service_day::VARCHAR AS last_service_day,
  d.service_odometer_km AS last_service_odometer_km,
  d.interval_scope,
  d.every_km,
  d.every_months,
  $zone::VARCHAR AS zone
FROM service_due($account, $zone, $now, $service_forecast_days, $service_forecast_min_days) AS d
WHERE vehicle_selected(d.vehicle_id, d.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY
  CASE d.status WHEN 'overdue' THEN 0 WHEN 'due' THEN 1 WHEN 'unknown' THEN 2 ELSE 3 END,
  d.registration,
  d.vehicle_id;
