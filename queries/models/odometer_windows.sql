-- odometer_windows_classified(acct, zone, from_day, to_day): the odometer windows of the local
-- months the range touches, each with its local month (period) and whether it counts toward
-- mileage. The rule, once: a window in which odometer_reset or terminal_has_changed is true is
-- flagged: the API's distance across it is meaningless (the reading jumps), so it is left out of
-- every total and listed with its reason code (reason_codes.sql); every other window counts with
-- its distance_m (never trip_distance).
--   counted    true for a window that counts
--   reason     NULL, or the reason code of a flagged window
--   counted_m  distance_m of a counted window, NULL for a flagged one
CREATE OR REPLACE TEMP MACRO odometer_windows_classified(acct, zone, from_day, to_day) AS TABLE
  SELECT
    w.*,
    NOT w.flagged AS counted,
    CASE WHEN NOT w.flagged THEN w.distance_m END AS counted_m
  FROM (
    SELECT
      o.*,
      local_month(o.window_start, zone) AS period,
      (o.odometer_reset OR o.terminal_has_changed) AS flagged,
      nullif(concat_ws(' and ',
        CASE WHEN o.odometer_reset THEN 'odometer_reset' END,
        CASE WHEN o.terminal_has_changed THEN 'terminal_has_changed' END), '') AS reason
    FROM odometer_windows AS o, local_months(zone, from_day, to_day) AS m
    WHERE o.account = acct AND o.window_start >= m.t0 AND o.window_start < m.t1
  ) AS w;
