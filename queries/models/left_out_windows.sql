-- left_out_windows(acct, zone, from_day, to_day): every window left out of a total in the local
-- months the range touches, from the two classifying models (so it cannot disagree with
-- mileage's or fuel's excluded_periods): the flagged odometer windows and the fuel-counter
-- windows left out, with the reason code, what the API reported, and the ledger's own reason.
CREATE OR REPLACE TEMP MACRO left_out_windows(acct, zone, from_day, to_day) AS TABLE
  SELECT x.*, l.reason AS ledger_reason
  FROM (
    SELECT
      'odometer' AS stream, o.vehicle_id, o.window_start, o.window_end, o.period, o.reason,
      o.distance_m, o.start_odometer_m, o.end_odometer_m,
      NULL::DOUBLE AS counter_start_l, NULL::DOUBLE AS counter_end_l
    FROM odometer_windows_classified(acct, zone, from_day, to_day) AS o
    WHERE NOT o.counted
    UNION ALL
    SELECT
      f.stream, f.vehicle_id, f.window_start, f.window_end, f.period, f.reason,
      NULL, NULL, NULL, f.counter_start_l, f.counter_end_l
    FROM fuel_windows_classified(acct, zone, from_day, to_day) AS f
    WHERE f.excluded
  ) AS x
  LEFT JOIN ledger AS l
    ON l.account = acct AND l.stream = x.stream AND l.scope = x.vehicle_id::VARCHAR
    AND l.window_start = x.window_start AND l.window_end = x.window_end;
