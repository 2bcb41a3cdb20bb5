-- The trips' day facts per driver (issue 29): per account, vehicle, local day (the account's zone)
-- and driver id (NULL: the trips that came without one), what the driver scorecards and the tax
-- logbook add up from the trips that start that day, computed by the model layer
-- (queries/models/trip_day_facts.sql, from the rules of queries/models/driver_scores.sql and
-- logbook.sql) by the trips stream's writer in the transaction that commits the trips, beside the
-- daily facts (src/store/facts.ts), and for every account by the upgrade that adds the table
-- (src/store/db.ts). A vehicle-day without a row has no trips.
--   trips, trip_distance_m            the trips and their trip distance
--   trips_without_counts              trips lacking one of the scorecard's event counts
--   braking … speeding_s              the sum of each count (speeding_s: road speeding seconds) over
--   braking_unknown … speeding_s_unknown   the trips that have it, and how many trips lack it
--   business_km, private_km, unclassified_km   per logbook class, the usable readings (closing −
--                                     opening odometer, km) of its trips (NULL when none)
--   unclassified_trips, unread_trips  the unclassified trips; the trips without a usable reading
--   km_rounded                        the usable readings, each rounded as the logbook shows it
--   last_end, last_end_m, last_trip   the latest end of the trips with a usable reading, that
--                                     trip's closing odometer (m) and its id
-- The odometer windows a trip may overlap are another stream's rows (its writer commits in
-- parallel), so nothing here depends on them: a vehicle with a left-out odometer window is read
-- from its trips where that matters (logbook_year_totals).
CREATE TABLE IF NOT EXISTS trip_day_facts (
  account              VARCHAR NOT NULL,
  vehicle_id           BIGINT NOT NULL,
  day                  DATE NOT NULL,
  driver_id            VARCHAR,
  trips                INTEGER NOT NULL,
  trip_distance_m      DOUBLE,
  trips_without_counts INTEGER NOT NULL,
  braking              BIGINT,
  braking_unknown      INTEGER NOT NULL,
  acceleration         BIGINT,
  acceleration_unknown INTEGER NOT NULL,
  cornering            BIGINT,
  cornering_unknown    INTEGER NOT NULL,
  speeding             BIGINT,
  speeding_unknown     INTEGER NOT NULL,
  speeding_s           DOUBLE,
  speeding_s_unknown   INTEGER NOT NULL,
  business_km          DOUBLE,
  private_km           DOUBLE,
  unclassified_km      DOUBLE,
  unclassified_trips   INTEGER NOT NULL,
  unread_trips         INTEGER NOT NULL,
  km_rounded           DOUBLE,
  last_end             TIMESTAMPTZ,
  last_end_m           DOUBLE,
  last_trip            VARCHAR
);
