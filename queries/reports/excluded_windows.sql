-- Every window left out of a total, with its reason code and its span: left_out_windows
-- (queries/models/left_out_windows.sql), i.e. the flagged odometer windows (mileage.sql) and the
-- fuel-counter windows whose counter went down or lacks a reading (fuel.sql). Same models as
-- those reports, so the rows here add up to their excluded_periods.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
x AS (SELECT * FROM left_out_windows($account, $zone, $from_day, $to_day))
SELECT
  veh.registration,
  x.vehicle_id,
  veh.department,
  x.stream,
  x.period,
  iso_local(x.window_start, $zone) AS window_start,
  iso_local(x.window_end, $zone) AS window_end,
  round((epoch(x.window_end) - epoch(x.window_start)) / 3600.0, 3)::DOUBLE AS span_h,
  x.reason,
  x.ledger_reason,
  round(x.distance_m / 1000.0, 3)::DOUBLE AS reported_distance_km,
  x.counter_start_l,
  x.counter_end_l,
  $zone::VARCHAR AS zone
FROM x
LEFT JOIN veh ON veh.vehicle_id = x.vehicle_id
WHERE vehicle_selected(x.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY x.window_start, veh.registration, x.stream;
