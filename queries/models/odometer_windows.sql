-- odometer_windows_classified(acct, zone, from_day, to_day): the odometer windows of the local
-- months the range touches, each with its local month (period) and whether it counts toward
-- mileage. The rule, once: a window in which odometer_reset or terminal_has_changed is true is
-- flagged: the API's distance across it is meaningless (the reading jumps), so it is left out of
-- every total and listed with its reason code (reason_codes.sql); every other window counts with
-- its distance_m (never trip_distance).
--   counted    true for a window that counts
--   reason     NULL, or the reason code of a flagged window
--   counted_m  distance_m of a counted window, NULL for a flagged one
-- odometer_flag(odometer_reset, terminal_has_changed) is the rule itself: the reason code of a
-- flagged window, NULL for one that counts. The sync asks it of every odometer answer
-- (queries/sync/odometer_flag.sql): it narrows a flagged window to one local day and stores it
-- with ledger status flagged and this code as the ledger's reason.
CREATE OR REPLACE TEMP MACRO odometer_flag(odometer_reset, terminal_has_changed) AS
  nullif(concat_ws(' and ',
    CASE WHEN odometer_reset THEN 'odometer_reset' END,
    CASE WHEN terminal_has_changed THEN 'terminal_has_changed' END), '');

-- odometer_windows_counted(acct): every odometer window of the account with `counted` (the rule
-- above), whatever its month: for a figure since an instant, not per month (service_due.sql).
CREATE OR REPLACE TEMP MACRO odometer_windows_counted(acct) AS TABLE
  SELECT o.*, odometer_flag(o.odometer_reset, o.terminal_has_changed) IS NULL AS counted
  FROM odometer_windows AS o
  WHERE o.account = acct;

CREATE OR REPLACE TEMP MACRO odometer_windows_classified(acct, zone, from_day, to_day) AS TABLE
  SELECT
    w.*,
    NOT w.flagged AS counted,
    CASE WHEN NOT w.flagged THEN w.distance_m END AS counted_m
  FROM (
    SELECT
      o.*,
      local_month(o.window_start, zone) AS period,
      odometer_flag(o.odometer_reset, o.terminal_has_changed) IS NOT NULL AS flagged,
      odometer_flag(o.odometer_reset, o.terminal_has_changed) AS reason
    FROM odometer_windows AS o, local_months(zone, from_day, to_day) AS m
    WHERE o.account = acct AND o.window_start >= m.t0 AND o.window_start < m.t1
  ) AS w;
