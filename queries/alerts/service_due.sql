-- The vehicles of an account as service_due judges them now (queries/models/service_due.sql),
-- for the service alerts (src/alerts/service.ts): one incident per vehicle due or overdue.
SELECT
  vehicle_id,
  registration,
  status,
  reason,
  service_day::VARCHAR AS last_service_day,
  next_service_day::VARCHAR AS next_service_day,
  round(km_remaining, 0)::DOUBLE AS km_remaining
FROM service_due($account, $zone, make_timestamptz($now_ms::BIGINT * 1000), $forecast_days, $min_days)
ORDER BY vehicle_id;
