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
-- the month's trips lacks it (trips_without_counts says how many). Added up from the trips' day
-- facts per driver (queries/models/trip_day_facts.sql: each local day's sums and the trips lacking
-- each count), not from every trip of the range.
CREATE OR REPLACE TEMP MACRO driver_months(acct, zone, from_day, to_day, vehicle, department) AS TABLE
  SELECT
    f.driver_id,
    month_of_day(f.day) AS period,
    sum(f.trip_distance_m) / 1000.0 AS km,
    sum(f.trips) AS trips,
    sum(f.trips_without_counts) AS trips_without_counts,
    known_sum(sum(f.braking), sum(f.braking_unknown)) AS braking,
    known_sum(sum(f.acceleration), sum(f.acceleration_unknown)) AS acceleration,
    known_sum(sum(f.cornering), sum(f.cornering_unknown)) AS cornering,
    known_sum(sum(f.speeding), sum(f.speeding_unknown)) AS speeding,
    known_sum(sum(f.speeding_s) / 60.0, sum(f.speeding_s_unknown)) AS speeding_min
  FROM trip_day_facts_in(acct, zone, from_day, to_day) AS f
  LEFT JOIN vehicle_departments(acct) AS veh ON veh.vehicle_id = f.vehicle_id
  WHERE vehicle_selected(f.vehicle_id, veh.department, vehicle, department)
  GROUP BY ALL;
