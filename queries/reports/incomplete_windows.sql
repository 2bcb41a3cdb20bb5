-- Ledger windows that are incomplete (to be pulled again) or failed, overlapping the range.
-- Fleet-wide windows (scope '*') are listed whatever the vehicle filter.
WITH
veh AS (SELECT * FROM selected_vehicles($account, $vehicle::BIGINT, $department::VARCHAR)),
rng AS (SELECT * FROM local_days($zone, $from_day, $to_day))
SELECT
  l.stream,
  l.scope,
  veh.registration,
  l.status,
  iso_local(l.window_start, $zone) AS window_start,
  iso_local(l.window_end, $zone) AS window_end,
  round((epoch(l.window_end) - epoch(l.window_start)) / 3600.0, 3)::DOUBLE AS span_h,
  l.reason,
  l.announced,
  l.kept,
  l.duplicates,
  iso_local(l.last_event_at, $zone) AS last_event_at,
  iso_local(l.fetched_at, $zone) AS fetched_at,
  l.run_id,
  $zone::VARCHAR AS zone
FROM ledger AS l
CROSS JOIN rng
LEFT JOIN veh ON l.scope = veh.vehicle_id::VARCHAR
WHERE l.account = $account
  AND l.status IN ('incomplete', 'failed')
  AND l.window_start < rng.t1 AND l.window_end > rng.t0
  AND (l.scope = '*' OR veh.vehicle_id IS NOT NULL)
ORDER BY l.window_start, l.stream, l.scope;
