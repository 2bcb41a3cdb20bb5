-- The account's working hours, once: its row of account_working_hours (recorded by each sync
-- from FLEETSYNC_WORKING_HOURS), else Monday–Friday 07:00–18:00.
--   working_hours_of(acct)  one row: weekdays (ISO, 1 = Monday), start_min, end_min (local
--                           minutes after midnight; work runs [start_min, end_min))
CREATE OR REPLACE TEMP MACRO working_hours_of(acct) AS TABLE
  SELECT weekdays, start_min, end_min FROM (
    SELECT weekdays, start_min, end_min, 0 AS o FROM account_working_hours WHERE account = acct
    UNION ALL
    SELECT [1, 2, 3, 4, 5], 420, 1080, 1
  ) ORDER BY o LIMIT 1;
