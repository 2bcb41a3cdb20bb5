-- fuel_drops_found(acct, threshold_l, max_min): suspected fuel drops, from the tank level series
-- (fuel_level_history). The rule, once:
-- - a fall is two consecutive readings of a vehicle where the level went down, at most max_min
--   minutes apart, with no synced trip of the vehicle running between them (a fall while driving
--   is fuel burned; a rise is a refuel);
-- - consecutive falls are one episode, from the reading before the first fall (start_time,
--   level_before_l) to the last reading of the last fall (end_time, level_after_l);
-- - an episode is a suspected drop when it lost more than threshold_l litres within max_min minutes.
--   parked  TRUE when the trips of the vehicle are synced (ledger 'done' or 'incomplete') over the
--           whole episode and none runs in it; NULL (unknown) when they are not synced there.
-- A drop is listed for investigation only: it is never subtracted from fuel used.
CREATE OR REPLACE TEMP MACRO fuel_drops_found(acct, threshold_l, max_min) AS TABLE
  WITH
  r AS (
    SELECT
      vehicle_id,
      reading_time AS t,
      level_l,
      lag(reading_time) OVER w AS t_prev,
      lag(level_l) OVER w AS l_prev
    FROM fuel_level_history
    WHERE account = acct
    WINDOW w AS (PARTITION BY vehicle_id ORDER BY reading_time)
  ),
  f AS (
    SELECT
      r.*,
      coalesce(
        r.level_l < r.l_prev
        AND r.t - r.t_prev <= to_minutes(CAST(max_min AS BIGINT))
        AND NOT EXISTS (
          SELECT 1 FROM trips AS tr
          WHERE tr.account = acct AND tr.vehicle_id = r.vehicle_id
            AND tr.start_time < r.t AND tr.end_time > r.t_prev
        ),
        FALSE
      ) AS is_fall
    FROM r
  ),
  g AS (
    SELECT *, sum(CASE WHEN is_fall THEN 0 ELSE 1 END) OVER (PARTITION BY vehicle_id ORDER BY t) AS island
    FROM f
  ),
  episodes AS (
    SELECT
      vehicle_id,
      min(t_prev) AS start_time,
      max(t) AS end_time,
      arg_min(l_prev, t) AS level_before_l,
      arg_max(level_l, t) AS level_after_l
    FROM g
    WHERE is_fall
    GROUP BY vehicle_id, island
  ),
  cover AS (
    SELECT
      e.vehicle_id, e.start_time,
      coalesce(sum(greatest(0, epoch(least(l.window_end, e.end_time)) - epoch(greatest(l.window_start, e.start_time))))
        FILTER (WHERE l.status IS NOT NULL), 0) AS covered_s
    FROM episodes AS e
    LEFT JOIN ledger AS l
      ON l.account = acct AND l.stream = 'trips' AND l.status IN ('done', 'incomplete')
      AND l.scope IN ('*', e.vehicle_id::VARCHAR)
      AND l.window_start < e.end_time AND l.window_end > e.start_time
    GROUP BY e.vehicle_id, e.start_time
  )
  SELECT
    e.vehicle_id,
    e.start_time,
    e.end_time,
    e.level_before_l - e.level_after_l AS litres,
    e.level_before_l,
    e.level_after_l,
    CASE WHEN c.covered_s >= epoch(e.end_time) - epoch(e.start_time) THEN TRUE END AS parked
  FROM episodes AS e
  JOIN cover AS c ON c.vehicle_id = e.vehicle_id AND c.start_time = e.start_time
  WHERE e.level_before_l - e.level_after_l > threshold_l
    AND e.end_time - e.start_time <= to_minutes(CAST(max_min AS BIGINT));
