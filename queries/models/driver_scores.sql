-- The driver scorecard's rules (issue 27; docs/reports.md "driver_scores"), once:
-- per_100km(n, km): a count (or minutes) per 100 km of distance; NULL when the distance is 0 or
-- unknown (no distance, no rate: never 0).
CREATE OR REPLACE TEMP MACRO per_100km(n, km) AS CASE WHEN km > 0 THEN n * 100.0 / km END;
-- driver_score(braking, acceleration, cornering, speeding, speeding_min, km, w_braking,
-- w_acceleration, w_cornering, w_speeding, w_speeding_min): 100 minus the weighted events per
-- 100 km, floored at 0, to one decimal. The weights are points per event (per minute of speeding)
-- per 100 km (FLEETSYNC_SCORE_WEIGHTS). NULL when any count is unknown or there is no distance.
CREATE OR REPLACE TEMP MACRO driver_score(
  braking, acceleration, cornering, speeding, speeding_min, km,
  w_braking, w_acceleration, w_cornering, w_speeding, w_speeding_min
) AS
  CASE WHEN km > 0 AND braking IS NOT NULL AND acceleration IS NOT NULL AND cornering IS NOT NULL
    AND speeding IS NOT NULL AND speeding_min IS NOT NULL
  THEN round(greatest(0, 100 - per_100km(
    w_braking * braking + w_acceleration * acceleration + w_cornering * cornering
      + w_speeding * speeding + w_speeding_min * speeding_min, km)), 1)
  END;
-- known_sum(x, unknown): the sum of a count over trips, NULL when any trip's count is unknown
-- (the API did not send it): a sum over one unknown is unknown, never a smaller number.
CREATE OR REPLACE TEMP MACRO known_sum(x, unknown) AS CASE WHEN unknown = 0 THEN coalesce(x, 0) END;
-- driver_months(acct, zone, from_day, to_day): per driver id (NULL: the trips without one) ×
-- local month of the trip's start, the trips' distance (trip_distance: the only per-driver
-- distance the API gives), trips, and the event counts; speeding is over the road's limit
-- (road_speeding_*), its minutes from road_speeding_duration_seconds. A count is NULL when one of
-- the month's trips lacks it (trips_without_counts says how many).
CREATE OR REPLACE TEMP MACRO driver_months(acct, zone, from_day, to_day, vehicle, department) AS TABLE
  SELECT
    t.driver_id,
    local_month(t.start_time, zone) AS period,
    sum(t.trip_distance_m) / 1000.0 AS km,
    count(*) AS trips,
    count(*) FILTER (WHERE t.harsh_braking_events IS NULL OR t.harsh_acceleration_events IS NULL
      OR t.harsh_cornering_events IS NULL OR t.road_speeding_events IS NULL
      OR t.road_speeding_duration_seconds IS NULL) AS trips_without_counts,
    known_sum(sum(t.harsh_braking_events), count(*) FILTER (WHERE t.harsh_braking_events IS NULL)) AS braking,
    known_sum(sum(t.harsh_acceleration_events), count(*) FILTER (WHERE t.harsh_acceleration_events IS NULL))
      AS acceleration,
    known_sum(sum(t.harsh_cornering_events), count(*) FILTER (WHERE t.harsh_cornering_events IS NULL))
      AS cornering,
    known_sum(sum(t.road_speeding_events), count(*) FILTER (WHERE t.road_speeding_events IS NULL)) AS speeding,
    known_sum(sum(t.road_speeding_duration_seconds) / 60.0,
      count(*) FILTER (WHERE t.road_speeding_duration_seconds IS NULL)) AS speeding_min
  FROM trips AS t
  LEFT JOIN vehicle_departments(acct) AS veh ON veh.vehicle_id = t.vehicle_id
  WHERE t.account = acct
    AND t.start_time >= local_range_start(zone, from_day)
    AND t.start_time < local_range_end(zone, to_day)
    AND vehicle_selected(t.vehicle_id, veh.department, vehicle, department)
  GROUP BY ALL;
