-- fuel_counter_vehicles(acct): the vehicles whose fuel comes from the ECU counter (the sensor
-- says so, or counter windows were synced); the others use the level estimate.
CREATE OR REPLACE TEMP MACRO fuel_counter_vehicles(acct) AS TABLE
  SELECT vehicle_id FROM vehicles WHERE account = acct AND fuel_canbus_consumed
  UNION
  SELECT DISTINCT vehicle_id FROM fuel_consumed WHERE account = acct;

-- vehicle_fuel_sources(acct): where each vehicle's fuel figure comes from, and the ledger stream
-- that synced it: 'counter' (fuel_consumed), 'level_estimate' (fuel_level), or, with no fuel
-- stream, 'electric' (battery-electric) or 'none' (stream NULL).
CREATE OR REPLACE TEMP MACRO vehicle_fuel_sources(acct) AS TABLE
  SELECT vehicle_id, source,
    CASE source WHEN 'counter' THEN 'fuel_consumed' WHEN 'level_estimate' THEN 'fuel_level' END AS fuel_stream
  FROM (
    SELECT v.vehicle_id,
      CASE
        WHEN v.fuel_canbus_consumed OR v.vehicle_id IN (SELECT vehicle_id FROM fuel_counter_vehicles(acct))
          THEN 'counter'
        WHEN v.fuel_canbus_level OR v.fuel_analog_level THEN 'level_estimate'
        WHEN v.electric_battery THEN 'electric'
        ELSE 'none'
      END AS source
    FROM vehicles AS v
    WHERE v.account = acct
  );

-- fuel_counter_reason(counter_start_l, counter_end_l): the rule for a counter window, once: NULL
-- when it counts, else why it is left out (fuel_counter_missing, or fuel_counter_went_down from
-- fuel_counter_went_down(…) below).
-- fuel_counter_went_down(counter_start_l, counter_end_l): 'fuel_counter_went_down' when both
-- readings are there and the end is below the start (a counter reset inside the window), else
-- NULL. The sync asks it of every counter answer (queries/sync/fuel_counter_went_down.sql): it
-- narrows such a window to one local day and stores it with ledger status flagged and this code
-- as the ledger's reason. A missing reading is no jump: the sync stores that window as it comes.
CREATE OR REPLACE TEMP MACRO fuel_counter_went_down(counter_start_l, counter_end_l) AS
  CASE WHEN counter_end_l < counter_start_l THEN 'fuel_counter_went_down' END;
CREATE OR REPLACE TEMP MACRO fuel_counter_reason(counter_start_l, counter_end_l) AS
  CASE
    WHEN counter_start_l IS NULL OR counter_end_l IS NULL THEN 'fuel_counter_missing'
    ELSE fuel_counter_went_down(counter_start_l, counter_end_l)
  END;

-- fuel_windows_classified(acct, zone, from_day, to_day): the fuel windows of the local months the
-- range touches, each with its local month (period), its source and whether it counts toward fuel
-- used. The rules, once:
-- - counter vehicles (source 'counter', ledger stream fuel_consumed): a window counts with
--   counter_end_l - counter_start_l when it has both readings and the counter did not go down;
--   otherwise it is left out (status 'left out', reason fuel_counter_went_down or
--   fuel_counter_missing), never a negative litre, and counted in excluded_periods;
-- - other vehicles (source 'level_estimate', ledger stream fuel_level): the API's estimated_used_l;
--   a window without one adds nothing (status 'no reading', reason fuel_level_missing) and is not
--   an excluded period (there is no counter to leave out).
--   counted   true for a window whose litres count
--   excluded  true for a window left out of fuel used and listed (status 'left out')
--   used_l    the litres it adds (NULL when not counted)
-- fuel_window_ignored(acct, vid, stream_name): a level-estimate window of a vehicle whose fuel
-- comes from the counter adds nothing and is not listed (the counter is its figure).
-- fuel_windows_sourced(acct, zone, from_day, to_day): the windows of both sources classified, those
-- ignored included (the daily facts keep each ledger stream's own; fuel_windows_classified and
-- vehicle_day_facts leave the ignored out).
CREATE OR REPLACE TEMP MACRO fuel_window_ignored(acct, vid, stream_name) AS
  stream_name = 'fuel_level' AND vid IN (SELECT c.vehicle_id FROM fuel_counter_vehicles(acct) AS c);
CREATE OR REPLACE TEMP MACRO fuel_windows_sourced(acct, zone, from_day, to_day) AS TABLE
  SELECT
    w.*,
    local_month(w.window_start, zone) AS period,
    w.reason IS NULL AS counted,
    CASE WHEN w.reason IS NULL THEN 'counted' WHEN w.source = 'counter' THEN 'left out' ELSE 'no reading' END
      AS status,
    (w.reason IS NOT NULL AND w.source = 'counter') AS excluded,
    CASE
      WHEN w.reason IS NOT NULL THEN NULL
      WHEN w.source = 'counter' THEN w.counter_end_l - w.counter_start_l
      ELSE w.reported_used_l
    END AS used_l
  FROM (
    SELECT
      f.vehicle_id, f.window_start, f.window_end,
      'counter' AS source,
      'fuel_consumed' AS stream,
      f.counter_start_l,
      f.counter_end_l,
      f.fuel_consumed_l AS reported_used_l,
      fuel_counter_reason(f.counter_start_l, f.counter_end_l) AS reason
    FROM fuel_consumed AS f
    WHERE f.account = acct
    UNION ALL
    SELECT
      f.vehicle_id, f.window_start, f.window_end,
      'level_estimate',
      'fuel_level',
      NULL::DOUBLE,
      NULL::DOUBLE,
      f.estimated_used_l,
      CASE WHEN f.estimated_used_l IS NULL THEN 'fuel_level_missing' END
    FROM fuel_level AS f
    WHERE f.account = acct
  ) AS w, local_months(zone, from_day, to_day) AS m
  WHERE w.window_start >= m.t0 AND w.window_start < m.t1;
CREATE OR REPLACE TEMP MACRO fuel_windows_classified(acct, zone, from_day, to_day) AS TABLE
  SELECT * FROM fuel_windows_sourced(acct, zone, from_day, to_day) AS w
  WHERE NOT fuel_window_ignored(acct, w.vehicle_id, w.stream);
