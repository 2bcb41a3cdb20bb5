-- The fuel windows behind fuel.sql, one row per window of fuel_windows_classified
-- (queries/models/fuel_windows.sql): for counter vehicles each ECU counter window (counted, or
-- left out because the counter went down or lacks a reading), for vehicles without a counter the
-- level-estimate windows. Same model as fuel.sql, so for a vehicle-month the sum of fuel_used_l
-- equals that month's fuel_used_l and the rows with status 'left out' are its excluded_periods.
-- reason is the label of the reason code (reason_codes.sql), as this report has always carried.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
m AS (SELECT * FROM fuel_windows_classified($account, $zone, $from_day, $to_day))
SELECT
  veh.registration,
  m.vehicle_id,
  veh.department,
  m.period,
  iso_local(m.window_start, $zone) AS window_start,
  iso_local(m.window_end, $zone) AS window_end,
  round((epoch(m.window_end) - epoch(m.window_start)) / 3600.0, 3)::DOUBLE AS span_h,
  round(m.counter_start_l, 3)::DOUBLE AS counter_start_l,
  round(m.counter_end_l, 3)::DOUBLE AS counter_end_l,
  round(m.used_l, 3)::DOUBLE AS fuel_used_l,
  m.status,
  reason_label(m.reason) AS reason,
  round(m.reported_used_l, 3)::DOUBLE AS reported_used_l,
  m.source,
  l.status AS ledger_status,
  l.reason AS ledger_reason,
  $zone::VARCHAR AS zone
FROM m
LEFT JOIN veh ON veh.vehicle_id = m.vehicle_id
LEFT JOIN ledger AS l
  ON l.account = $account AND l.stream = m.stream AND l.scope = m.vehicle_id::VARCHAR
  AND l.window_start = m.window_start AND l.window_end = m.window_end
WHERE vehicle_selected(m.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY veh.registration, m.vehicle_id, m.window_start;
