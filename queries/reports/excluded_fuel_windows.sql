-- The fuel-counter windows left out of fuel used (fuel.sql): the fuel_consumed rows of
-- left_out_windows (queries/models/left_out_windows.sql), a window whose cumulative ECU counter
-- went down (a counter reset) or lacks a reading at either end, with its span and the readings.
-- Same model as fuel.sql, so for a vehicle-month these rows are its excluded_periods. The fuel
-- used in such a window is not known (the counter restarted).
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
x AS (SELECT * FROM left_out_windows($account, $zone, $from_day, $to_day) WHERE stream = 'fuel_consumed')
SELECT
  veh.registration,
  x.vehicle_id,
  veh.department,
  x.period,
  iso_local(x.window_start, $zone) AS window_start,
  iso_local(x.window_end, $zone) AS window_end,
  round((epoch(x.window_end) - epoch(x.window_start)) / 3600.0, 3)::DOUBLE AS span_h,
  x.reason,
  x.counter_start_l,
  x.counter_end_l,
  x.ledger_reason,
  $zone::VARCHAR AS zone
FROM x
LEFT JOIN veh ON veh.vehicle_id = x.vehicle_id
WHERE vehicle_selected(x.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY x.window_start, veh.registration, x.vehicle_id;
