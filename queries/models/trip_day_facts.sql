-- The trips' day facts per driver (issue 29; queries/schema/054_trip_day_facts.sql), computed from
-- the trips through the rules of driver_scores.sql (the event counts a scorecard adds up) and
-- logbook.sql (a trip's class and reading).
-- trip_day_facts_of(acct, zone, from_day, to_day): per vehicle, local day of [from_day, to_day]
-- the trips start on, and driver id, in the table's column order after account.
CREATE OR REPLACE TEMP MACRO trip_day_facts_of(acct, zone, from_day, to_day) AS TABLE
  SELECT
    t.vehicle_id,
    timezone(zone, t.start_time)::DATE AS day,
    t.driver_id,
    count(*)::INTEGER AS trips,
    sum(t.trip_distance_m) AS trip_distance_m,
    count(*) FILTER (WHERE t.harsh_braking_events IS NULL OR t.harsh_acceleration_events IS NULL
      OR t.harsh_cornering_events IS NULL OR t.road_speeding_events IS NULL
      OR t.road_speeding_duration_seconds IS NULL)::INTEGER AS trips_without_counts,
    sum(t.harsh_braking_events) AS braking,
    count(*) FILTER (WHERE t.harsh_braking_events IS NULL)::INTEGER AS braking_unknown,
    sum(t.harsh_acceleration_events) AS acceleration,
    count(*) FILTER (WHERE t.harsh_acceleration_events IS NULL)::INTEGER AS acceleration_unknown,
    sum(t.harsh_cornering_events) AS cornering,
    count(*) FILTER (WHERE t.harsh_cornering_events IS NULL)::INTEGER AS cornering_unknown,
    sum(t.road_speeding_events) AS speeding,
    count(*) FILTER (WHERE t.road_speeding_events IS NULL)::INTEGER AS speeding_unknown,
    sum(t.road_speeding_duration_seconds) AS speeding_s,
    count(*) FILTER (WHERE t.road_speeding_duration_seconds IS NULL)::INTEGER AS speeding_s_unknown,
    sum(t.km) FILTER (WHERE t.class = 'business') AS business_km,
    sum(t.km) FILTER (WHERE t.class = 'private') AS private_km,
    sum(t.km) FILTER (WHERE t.class = 'unclassified') AS unclassified_km,
    count(*) FILTER (WHERE t.class = 'unclassified')::INTEGER AS unclassified_trips,
    count(*) FILTER (WHERE t.km IS NULL)::INTEGER AS unread_trips,
    sum(round(t.km, 3)) AS km_rounded,
    max(t.end_time) FILTER (WHERE t.km IS NOT NULL) AS last_end,
    arg_max(t.end_odometer_m, t.end_time) FILTER (WHERE t.km IS NOT NULL) AS last_end_m,
    arg_max(t.trip_id, t.end_time) FILTER (WHERE t.km IS NOT NULL) AS last_trip
  FROM (
    SELECT *, logbook_trip_class(trip_type, is_private) AS class,
      logbook_reading_km(start_odometer_m, end_odometer_m) AS km
    FROM trips
    WHERE account = acct
      AND start_time >= local_range_start(zone, from_day) AND start_time < local_range_end(zone, to_day)
  ) AS t
  GROUP BY t.vehicle_id, day, t.driver_id;

-- trip_day_facts_in(acct, zone, from_day, to_day): the stored rows of the local days [from_day,
-- to_day] (what the reports read); trip_day_facts_in_raw: the same computed from the trips now
-- (queries/sync/facts_use_raw.sql puts it in the reports' place for the comparison test).
CREATE OR REPLACE TEMP MACRO trip_day_facts_in(acct, zone, from_day, to_day) AS TABLE
  SELECT f.* EXCLUDE (account)
  FROM trip_day_facts AS f
  WHERE f.account = acct AND f.day >= from_day::DATE AND f.day <= to_day::DATE;
CREATE OR REPLACE TEMP MACRO trip_day_facts_in_raw(acct, zone, from_day, to_day) AS TABLE
  SELECT * FROM trip_day_facts_of(acct, zone, from_day, to_day);
