-- The odometer windows left out of mileage (mileage.sql): the odometer rows of left_out_windows
-- (queries/models/left_out_windows.sql), a window with a reset or a tracker change, with its
-- reason code and span. Same model as mileage.sql, so for a vehicle-month these rows are its
-- excluded_periods.
-- The API's distance of such a window is garbage (the reading jumps), so the km left out come from
-- the trip log: the distance of the vehicle's trips starting in the window, blank (unknown) unless
-- done trips windows cover the whole window. reported_distance_km is the API's figure, as sent.
WITH
veh AS (SELECT * FROM vehicle_departments($account)),
x AS (SELECT * FROM left_out_windows($account, $zone, $from_day, $to_day) WHERE stream = 'odometer'),
trip_cover AS (
  SELECT
    x.vehicle_id, x.window_start, x.window_end,
    -- FILTER: least/greatest skip NULLs, so a window with no trips ledger row would count as covered
    coalesce(sum(greatest(0, epoch(least(l.window_end, x.window_end)) - epoch(greatest(l.window_start, x.window_start))))
      FILTER (WHERE l.status IS NOT NULL), 0) AS covered_s
  FROM x
  LEFT JOIN ledger AS l
    ON l.account = $account AND l.stream = 'trips' AND l.status = 'done'
    AND l.scope IN ('*', x.vehicle_id::VARCHAR)
    AND l.window_start < x.window_end AND l.window_end > x.window_start
  GROUP BY x.vehicle_id, x.window_start, x.window_end
),
trip_km AS (
  SELECT x.vehicle_id, x.window_start, x.window_end, coalesce(sum(t.trip_distance_m), 0) AS m
  FROM x
  LEFT JOIN trips AS t
    ON t.account = $account AND t.vehicle_id = x.vehicle_id
    AND t.start_time >= x.window_start AND t.start_time < x.window_end
  GROUP BY x.vehicle_id, x.window_start, x.window_end
)
SELECT
  veh.registration,
  x.vehicle_id,
  veh.department,
  x.period,
  iso_local(x.window_start, $zone) AS window_start,
  iso_local(x.window_end, $zone) AS window_end,
  round((epoch(x.window_end) - epoch(x.window_start)) / 3600.0, 3)::DOUBLE AS span_h,
  x.reason,
  CASE WHEN c.covered_s >= epoch(x.window_end) - epoch(x.window_start)
    THEN round(k.m / 1000.0, 3) END::DOUBLE AS left_out_km,
  round(x.distance_m / 1000.0, 3)::DOUBLE AS reported_distance_km,
  round(x.start_odometer_m / 1000.0, 3)::DOUBLE AS start_odometer_km,
  round(x.end_odometer_m / 1000.0, 3)::DOUBLE AS end_odometer_km,
  x.ledger_reason,
  $zone::VARCHAR AS zone
FROM x
JOIN trip_cover AS c USING (vehicle_id, window_start, window_end)
JOIN trip_km AS k USING (vehicle_id, window_start, window_end)
LEFT JOIN veh ON veh.vehicle_id = x.vehicle_id
WHERE vehicle_selected(x.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
ORDER BY x.window_start, veh.registration, x.vehicle_id;
