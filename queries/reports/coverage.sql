-- Vehicle × local day coverage of the odometer stream (the basis of mileage): incomplete when an
-- incomplete or failed window touches the day, flagged when a flagged window does, synced when
-- done/flagged windows cover the whole day, else missing. The days are the range's local days
-- that have ended (ended_local_days, queries/models/coverage.sql: the days kpis' range_days
-- counts): today, not yet ended, is neither synced nor missing and is not listed.
WITH
veh AS (SELECT * FROM selected_vehicles($account, $vehicle::BIGINT, $department::VARCHAR)),
days AS (SELECT * FROM ended_local_days($zone, $from_day, $to_day, $now::TIMESTAMPTZ)),
-- the selected vehicles' odometer windows that overlap the range, each cut at the range's local
-- days it touches (an equi-join on the vehicle follows: joining every vehicle × day to the windows
-- by their bounds held all the pairs at once, more than serve's memory at 5,000 vehicles × a year;
-- the vehicles selected before the cut, so a page read vehicle by vehicle cuts one vehicle's)
led AS (
  SELECT l.vehicle_id, l.window_start, l.window_end, l.status
  FROM (
    SELECT try_cast(scope AS BIGINT) AS vehicle_id, window_start, window_end, status
    FROM ledger
    WHERE account = $account AND stream = 'odometer'
      AND window_start < (SELECT max(d1) FROM days) AND window_end > (SELECT min(d0) FROM days)
  ) AS l
  WHERE l.vehicle_id IN (SELECT vehicle_id FROM veh)
),
pieces AS (
  SELECT l.vehicle_id, days.day,
    sum(greatest(0, epoch(least(l.window_end, days.d1)) - epoch(greatest(l.window_start, days.d0))))
      FILTER (WHERE l.status IN ('done', 'flagged')) AS covered_s,
    count(l.status) FILTER (WHERE l.status = 'flagged') AS flagged,
    count(l.status) FILTER (WHERE l.status IN ('incomplete', 'failed')) AS bad
  FROM led AS l
  JOIN days ON l.window_start < days.d1 AND l.window_end > days.d0
  GROUP BY l.vehicle_id, days.day
),
cells AS (
  SELECT veh.vehicle_id, days.day, epoch(days.d1) - epoch(days.d0) AS span_s,
    coalesce(p.covered_s, 0) AS covered_s, coalesce(p.flagged, 0) AS flagged, coalesce(p.bad, 0) AS bad
  FROM veh
  CROSS JOIN days
  LEFT JOIN pieces AS p ON p.vehicle_id = veh.vehicle_id AND p.day = days.day
)
SELECT
  veh.registration,
  cells.vehicle_id,
  veh.department,
  strftime(cells.day, '%Y-%m-%d') AS day,
  CASE
    WHEN cells.bad > 0 THEN 'incomplete'
    WHEN cells.flagged > 0 THEN 'flagged'
    WHEN cells.covered_s >= cells.span_s THEN 'synced'
    ELSE 'missing'
  END AS status,
  round(least(1, cells.covered_s / nullif(cells.span_s, 0)), 4)::DOUBLE AS covered_share
FROM cells
JOIN veh ON veh.vehicle_id = cells.vehicle_id
ORDER BY veh.registration, cells.vehicle_id, cells.day;
