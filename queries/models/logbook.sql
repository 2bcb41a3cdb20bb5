-- The tax logbook's rules, once (issue 27 item 1): the tax year, a trip's class, and which of a
-- trip's kilometres count toward a year's totals.
--
-- The tax year starts on a month-day (`start_mmdd`, 'MM-DD', FLEETSYNC_TAX_YEAR_START: by default
-- from the account's country, 03-01 ZA, 07-01 AU, 04-01 NZ, else 01-01) and runs a year to the day
-- before the next start. A trip is in the tax year of the local day it starts on.
-- tax_year_first_day(day, start_mmdd): the first local day of the tax year a local day is in.
CREATE OR REPLACE TEMP MACRO tax_year_first_day(day, start_mmdd) AS
  make_date(
    year(day::DATE) - CASE WHEN strftime(day::DATE, '%m-%d') < start_mmdd THEN 1 ELSE 0 END,
    CAST(left(start_mmdd, 2) AS INTEGER),
    CAST(right(start_mmdd, 2) AS INTEGER));
-- tax_year_last_day(first_day): the tax year's last local day (the day before the next start).
CREATE OR REPLACE TEMP MACRO tax_year_last_day(first_day) AS
  (first_day::DATE + INTERVAL 1 YEAR)::DATE - 1;
-- tax_year_label(first_day): '2025' for a calendar tax year, else '2025/26' (the year it starts
-- in / the one it ends in).
CREATE OR REPLACE TEMP MACRO tax_year_label(first_day) AS
  CASE WHEN strftime(first_day::DATE, '%m-%d') = '01-01' THEN year(first_day::DATE)::VARCHAR
    ELSE year(first_day::DATE)::VARCHAR || '/' || right((year(first_day::DATE) + 1)::VARCHAR, 2) END;
-- tax_years(start_mmdd, from_day, to_day): every tax year the range of local days touches, whole.
CREATE OR REPLACE TEMP MACRO tax_years(start_mmdd, from_day, to_day) AS TABLE
  SELECT
    g.d::DATE AS year_first_day,
    tax_year_last_day(g.d) AS year_last_day,
    tax_year_label(g.d) AS tax_year
  FROM unnest(generate_series(
    tax_year_first_day(from_day, start_mmdd)::TIMESTAMP,
    tax_year_first_day(to_day, start_mmdd)::TIMESTAMP,
    INTERVAL 1 YEAR
  )) AS g(d);

-- The class, its note and the reading of one trip (what logbook_trips and the daily facts' logbook
-- columns, queries/models/daily_facts.sql, both compute), from the trip's columns:
-- logbook_trip_class(trip_type, is_private), logbook_class_note(trip_type, is_private),
-- logbook_reading_km(start_odometer_m, end_odometer_m), and logbook_reading_status(start_odometer_m,
-- end_odometer_m): missing | went_down, NULL when the readings are usable (reading_km not NULL).
CREATE OR REPLACE TEMP MACRO logbook_trip_class(ttype, priv) AS
  CASE
    WHEN ttype = 'Business' AND priv IS NOT TRUE THEN 'business'
    WHEN ttype = 'Private' AND priv IS NOT FALSE THEN 'private'
    WHEN ttype IS NULL AND priv IS TRUE THEN 'private'
    ELSE 'unclassified'
  END;
CREATE OR REPLACE TEMP MACRO logbook_class_note(ttype, priv) AS
  CASE
    WHEN ttype = 'Business' AND priv IS TRUE THEN 'type Business but marked private'
    WHEN ttype = 'Private' AND priv IS FALSE THEN 'type Private but marked not private'
    WHEN ttype = 'None' THEN 'the API says not classified'
    WHEN ttype IS NULL AND priv IS NOT TRUE THEN 'the API sent no trip type'
    WHEN ttype NOT IN ('Business', 'Private', 'None') THEN 'trip type not known to this version: ' || ttype
  END;
CREATE OR REPLACE TEMP MACRO logbook_reading_km(start_m, end_m) AS
  CASE WHEN end_m >= start_m THEN (end_m - start_m) / 1000.0 END;
CREATE OR REPLACE TEMP MACRO logbook_reading_status(start_m, end_m) AS
  CASE
    WHEN start_m IS NULL OR end_m IS NULL THEN 'missing'
    WHEN end_m < start_m THEN 'went_down'
  END;

-- logbook_left_out_windows(acct, zone, from_day, to_day): the odometer windows the odometer rule
-- leaves out (odometer_windows.sql: a reset or a tracker change) that a trip starting on a local
-- day of the range can overlap (a trip that starts on the range's last day may end in the next
-- local month). A trip overlapping one is left_out: its readings are not trusted.
CREATE OR REPLACE TEMP MACRO logbook_left_out_windows(acct, zone, from_day, to_day) AS TABLE
  SELECT vehicle_id, window_start, window_end, reason
  FROM odometer_windows_classified(acct, zone, from_day, (to_day::DATE + INTERVAL 2 DAY)::DATE)
  WHERE NOT counted;

-- logbook_overlaps(window_start, window_end, start_time, end_time): whether a trip overlaps a
-- window (the trip's readings are not trusted when the window is left out).
CREATE OR REPLACE TEMP MACRO logbook_overlaps(w_start, w_end, t_start, t_end) AS
  w_start < t_end AND w_end > t_start;

-- logbook_left_out_trips(acct, zone, from_day, to_day): the trips that start on a local day of the
-- range and overlap an odometer window left out (logbook_left_out_windows), with their readings and
-- the window's reason code (the least, when two): the trips whose odometer_status is left_out
-- unless their readings are missing or went down (logbook_trips). One row per trip, by its key
-- (not its rowid: the lake's Parquet views have none; the key is a text column read for every trip
-- of the range, ~0.15 s for a year at 5,000 vehicles), each other column read only when a query of
-- it uses it.
CREATE OR REPLACE TEMP MACRO logbook_left_out_trips(acct, zone, from_day, to_day) AS TABLE
  SELECT
    t.trip_id,
    any_value(t.vehicle_id) AS vehicle_id,
    any_value(t.start_time) AS start_time,
    any_value(t.end_time) AS end_time,
    any_value(t.trip_type) AS trip_type,
    any_value(t.is_private) AS is_private,
    any_value(t.start_odometer_m) AS start_odometer_m,
    any_value(t.end_odometer_m) AS end_odometer_m,
    min(l.reason) AS reason
  FROM trips AS t JOIN logbook_left_out_windows(acct, zone, from_day, to_day) AS l
    ON l.vehicle_id = t.vehicle_id AND logbook_overlaps(l.window_start, l.window_end, t.start_time, t.end_time)
  WHERE t.account = acct
    AND t.start_time >= local_range_start(zone, from_day)
    AND t.start_time < local_range_end(zone, to_day)
  GROUP BY t.trip_id;

-- logbook_left_out_spans(acct, zone, from_day, to_day): the trips of logbook_left_out_trips by
-- their vehicle, start and end only (all that the overlap depends on), with how many trips share
-- them (n). The trips' key, a text column, is not read (~0.12 s of CPU a year at 5,000 vehicles).
-- A trip that overlaps two left-out windows is counted once: trips alike in vehicle, start and end
-- overlap the same windows, so n is their count beside any one window (a window is one row of
-- odometer_windows: its key is account, vehicle, start and end).
CREATE OR REPLACE TEMP MACRO logbook_left_out_spans(acct, zone, from_day, to_day) AS TABLE
  SELECT vehicle_id, start_time, end_time, max(n) AS n
  FROM (
    SELECT t.vehicle_id, t.start_time, t.end_time, l.window_start, l.window_end, count(*) AS n
    FROM trips AS t JOIN logbook_left_out_windows(acct, zone, from_day, to_day) AS l
      ON l.vehicle_id = t.vehicle_id AND logbook_overlaps(l.window_start, l.window_end, t.start_time, t.end_time)
    WHERE t.account = acct
      AND t.start_time >= local_range_start(zone, from_day)
      AND t.start_time < local_range_end(zone, to_day)
    GROUP BY t.vehicle_id, t.start_time, t.end_time, l.window_start, l.window_end
  )
  GROUP BY vehicle_id, start_time, end_time;

-- logbook_trips(acct, zone, from_day, to_day): every trip that starts on a local day of the range,
-- with
--   local_day       the local day it starts on
--   trip_class      business | private | unclassified, from the API's trip_type and is_private:
--                   business only when trip_type is Business and the trip is not marked private;
--                   private when trip_type is Private (and not marked otherwise) or is_private is
--                   true with no type; everything else (None, no type, a type this version does
--                   not know, Business marked private) is unclassified: never silently business.
--   class_note      why a trip is unclassified (NULL for a classified one)
--   reading_km      closing − opening odometer, as the trip's readings say (NULL without both, or
--                   when the closing reading is below the opening one)
--   odometer_status ok | missing (a reading not sent) | went_down (the closing reading is below the
--                   opening one: a reset during the trip) | left_out (the trip overlaps an odometer
--                   window the odometer rule leaves out, odometer_windows.sql: a reset or a tracker
--                   change that day, so its readings are not trusted)
--   odometer_reason the left-out window's reason code (reason_codes.sql)
--   counted_km      the kilometres the totals count: reading_km of an ok trip, NULL otherwise (the
--                   year's distance by the odometer rule is odometer_km of logbook_year_totals).
--                   Never trip_distance.
-- logbook_trips_of(acct, zone, from_day, to_day, vehicles): the same for the vehicles of the list
-- only (NULL: every vehicle), chosen before anything is computed per trip.
CREATE OR REPLACE TEMP MACRO logbook_trips_of(acct, zone, from_day, to_day, vehicles) AS TABLE
  WITH
  t AS (
    SELECT * FROM trips
    WHERE account = acct
      AND start_time >= local_range_start(zone, from_day)
      AND start_time < local_range_end(zone, to_day)
      AND (vehicles IS NULL OR vehicle_id IN (SELECT unnest(vehicles)))
  ),
  -- the same trips read again for their key and times only: t is then read once, so it is not
  -- materialized with every column (a tax year at 5,000 vehicles is ~9 M trips)
  marked AS (
    SELECT m.trip_id, m.reason
    FROM logbook_left_out_trips(acct, zone, from_day, to_day) AS m
    WHERE vehicles IS NULL OR m.vehicle_id IN (SELECT unnest(vehicles))
  ),
  c AS (
    SELECT
      t.*,
      timezone(zone, t.start_time)::DATE AS local_day,
      logbook_trip_class(t.trip_type, t.is_private) AS trip_class,
      logbook_class_note(t.trip_type, t.is_private) AS class_note,
      logbook_reading_km(t.start_odometer_m, t.end_odometer_m) AS reading_km,
      coalesce(logbook_reading_status(t.start_odometer_m, t.end_odometer_m),
        CASE WHEN marked.reason IS NOT NULL THEN 'left_out' ELSE 'ok' END) AS odometer_status,
      marked.reason AS odometer_reason
    FROM t LEFT JOIN marked ON marked.trip_id = t.trip_id
  )
  SELECT c.*, CASE WHEN c.odometer_status = 'ok' THEN c.reading_km END AS counted_km
  FROM c;
CREATE OR REPLACE TEMP MACRO logbook_trips(acct, zone, from_day, to_day) AS TABLE
  SELECT * FROM logbook_trips_of(acct, zone, from_day, to_day, NULL);

-- logbook_year_totals(acct, zone, start_mmdd, from_day, to_day): per vehicle × tax year the range
-- touches (whole years), the year's trips as logbook_trips counts them (a vehicle-year with trips
-- but no odometer window is a row too), added up from the trips' day facts (trip_day_facts) less
-- the trips with a usable reading over an odometer window left out (logbook_left_out_trips), not
-- trip by trip (issue 29: a year of trips at 5,000 vehicles is ~9 M; the left-out ones ~25 k):
--   trips, business_km, private_km, unclassified_km, unclassified_trips, trips_not_counted
--                         the trips starting in the year, the counted_km of each class, the
--                         unclassified ones and those whose kilometres are not counted
-- and from the odometer windows (odometer_windows.sql):
--   odometer_km           the year's distance by the odometer rule (the counted windows, as the
--                         mileage report; windows with a reset or tracker change left out), moved
--                         to where the year's trips end (below)
--   left_out_windows      the windows left out of it
--   opening_odometer_km, opening_odometer_day  the reading at the start of the year's first
--                         window, and its local day (the year's first day when synced from it)
--   closing_odometer_km, closing_odometer_day  the reading at the end of its last window, and the
--                         local day that window ends on
--   opening_odometer_trip, closing_odometer_trip  the trip whose closing reading the year opens or
--                         closes at (below), NULL when it is a window's
-- A trip is in the year its start falls in, whole (issue 27: the statement must add up). So when
-- the year's last counted trip (odometer_status ok) ends after the year's last odometer window —
-- it crosses the tax year's end at local midnight, or the end of the synced odometer data — the
-- year ends where that trip ends: its closing reading is the year's closing odometer (read on the
-- local day the trip ends), and the kilometres from the windows' last reading to it are added to
-- the year's odometer_km. The next year, when its windows cover them, starts at that reading and
-- leaves them out (counted once, in the year of the trip). Business + private + unclassified km
-- are then never more than odometer_km, and equal to it when every trip is counted and the
-- vehicle moved only on trips.
CREATE OR REPLACE TEMP MACRO logbook_year_totals(acct, zone, start_mmdd, from_day, to_day) AS TABLE
  WITH y AS (SELECT * FROM tax_years(start_mmdd, from_day, to_day)),
  -- the years of the days read (the years' and the two days before: the last trip of the year
  -- before may end in the first year's first window)
  ry AS (
    SELECT * FROM tax_years(start_mmdd, (tax_year_first_day(from_day, start_mmdd) - INTERVAL 2 DAY)::DATE, to_day)
  ),
  -- the trips starting on those days that overlap an odometer window left out
  -- (logbook_left_out_spans: their vehicle and times, n trips each): the trips' day facts
  -- (trip_day_facts) count the kilometres of those with a usable reading, logbook_trips does not
  -- (left_out), so they are taken off below
  xt AS (
    SELECT m.vehicle_id, m.start_time, m.end_time, m.n, timezone(zone, m.start_time)::DATE AS day
    FROM logbook_left_out_spans(acct, zone, (tax_year_first_day(from_day, start_mmdd) - INTERVAL 2 DAY)::DATE, tax_year_last_day(tax_year_first_day(to_day, start_mmdd))) AS m
  ),
  -- the facts of the vehicles' days with such a trip, with how many of the day's trips are
  -- (left_out): a day all of whose trips are is taken off whole
  fd AS (
    SELECT d.*, ry.year_first_day
    FROM (
      SELECT
        f.vehicle_id, f.day, any_value(xd.n) AS left_out,
        sum(f.trips) AS trips,
        sum(f.trips - f.unread_trips) AS usable,
        sum(f.business_km) AS business_km,
        sum(f.private_km) AS private_km,
        sum(f.unclassified_km) AS unclassified_km
      FROM trip_day_facts_in(acct, zone, (tax_year_first_day(from_day, start_mmdd) - INTERVAL 2 DAY)::DATE, tax_year_last_day(tax_year_first_day(to_day, start_mmdd))) AS f
      JOIN (SELECT vehicle_id, day, sum(n) AS n FROM xt GROUP BY ALL) AS xd
        ON xd.vehicle_id = f.vehicle_id AND xd.day = f.day
      GROUP BY f.vehicle_id, f.day
    ) AS d
    JOIN ry ON d.day >= ry.year_first_day AND d.day <= ry.year_last_day
  ),
  -- of a day only some of whose trips are left out, those with a usable reading, read trip by
  -- trip (few: a trip across the edge of a window)
  xp AS (
    SELECT
      p.vehicle_id, p.year_first_day,
      logbook_trip_class(t.trip_type, t.is_private) AS trip_class,
      logbook_reading_km(t.start_odometer_m, t.end_odometer_m) AS km
    FROM trips AS t JOIN (SELECT * FROM fd WHERE trips > left_out) AS p
      ON p.vehicle_id = t.vehicle_id
      AND t.start_time >= local_range_start(zone, p.day) AND t.start_time < local_range_end(zone, p.day)
    WHERE t.account = acct
      AND logbook_reading_km(t.start_odometer_m, t.end_odometer_m) IS NOT NULL
      AND EXISTS (
        SELECT 1 FROM logbook_left_out_windows(acct, zone, (tax_year_first_day(from_day, start_mmdd) - INTERVAL 2 DAY)::DATE, tax_year_last_day(tax_year_first_day(to_day, start_mmdd))) AS l
        WHERE l.vehicle_id = t.vehicle_id AND logbook_overlaps(l.window_start, l.window_end, t.start_time, t.end_time))
  ),
  -- per vehicle and year: how many trips with a usable reading are left out, and their kilometres
  x AS (
    SELECT vehicle_id, year_first_day, sum(n) AS n, sum(business_km) AS business_km,
      sum(private_km) AS private_km, sum(unclassified_km) AS unclassified_km
    FROM (
      SELECT vehicle_id, year_first_day, usable AS n, business_km, private_km, unclassified_km
      FROM fd WHERE trips = left_out
      UNION ALL
      SELECT vehicle_id, year_first_day, 1,
        CASE WHEN trip_class = 'business' THEN km END,
        CASE WHEN trip_class = 'private' THEN km END,
        CASE WHEN trip_class = 'unclassified' THEN km END
      FROM xp
    )
    GROUP BY ALL
  ),
  -- per vehicle and year, the facts' totals less the left-out trips, and the facts' last trip with
  -- a usable reading (the year's last counted trip unless a left-out trip ends when it does: below)
  per_year AS (
    SELECT
      f.vehicle_id,
      f.year_first_day,
      f.trips,
      f.business_km - coalesce(xy.business_km, 0) AS business_km,
      f.private_km - coalesce(xy.private_km, 0) AS private_km,
      f.unclassified_km - coalesce(xy.unclassified_km, 0) AS unclassified_km,
      f.unclassified_trips,
      f.trips_not_counted + coalesce(xy.n, 0) AS trips_not_counted,
      f.end_m,
      f.end_at
    FROM (
      SELECT
        f.vehicle_id,
        ry.year_first_day,
        sum(f.trips) AS trips,
        coalesce(sum(f.business_km), 0) AS business_km,
        coalesce(sum(f.private_km), 0) AS private_km,
        coalesce(sum(f.unclassified_km), 0) AS unclassified_km,
        sum(f.unclassified_trips) AS unclassified_trips,
        sum(f.unread_trips) AS trips_not_counted,
        arg_max(f.last_end_m, f.last_end) AS end_m,
        max(f.last_end) AS end_at
      FROM trip_day_facts_in(acct, zone, (tax_year_first_day(from_day, start_mmdd) - INTERVAL 2 DAY)::DATE, tax_year_last_day(tax_year_first_day(to_day, start_mmdd))) AS f
      JOIN ry ON f.day >= ry.year_first_day AND f.day <= ry.year_last_day
      GROUP BY ALL
    ) AS f
    LEFT JOIN x AS xy ON xy.vehicle_id = f.vehicle_id AND xy.year_first_day = f.year_first_day
  ),
  -- the years whose facts' last trip may be left out (a left-out trip ends when it does): their
  -- last counted trip is found again from their days in the facts, each with its left-out trips:
  -- the day's last trip with a usable reading when no left-out trip ends when it does ('facts'),
  -- none when every trip of the day is left out ('none'), else from the
  -- day's trips ('trips') when it may be the year's last (its last one ends no earlier than the
  -- last of the days known)
  relast AS (
    SELECT DISTINCT p.vehicle_id, p.year_first_day
    FROM per_year AS p JOIN xt ON xt.vehicle_id = p.vehicle_id AND xt.end_time = p.end_at
  ),
  rd AS (
    SELECT
      d.vehicle_id, d.year_first_day, d.day, d.last_end, d.last_end_m, d.last_trip,
      CASE
        WHEN fd.vehicle_id IS NULL THEN 'facts'
        WHEN fd.trips = fd.left_out THEN 'none'
        WHEN NOT EXISTS (
          SELECT 1 FROM xt WHERE xt.vehicle_id = d.vehicle_id AND xt.day = d.day AND xt.end_time = d.last_end)
          THEN 'facts'
        ELSE 'trips'
      END AS last_from
    FROM (
      SELECT f.vehicle_id, mv.year_first_day, f.day, max(f.last_end) AS last_end, arg_max(f.last_end_m, f.last_end) AS last_end_m,
        arg_max(f.last_trip, f.last_end) AS last_trip
      FROM trip_day_facts_in(acct, zone, (tax_year_first_day(from_day, start_mmdd) - INTERVAL 2 DAY)::DATE, tax_year_last_day(tax_year_first_day(to_day, start_mmdd))) AS f
      JOIN relast AS mv ON mv.vehicle_id = f.vehicle_id
        AND f.day >= mv.year_first_day AND f.day <= tax_year_last_day(mv.year_first_day)
      GROUP BY ALL
    ) AS d
    LEFT JOIN fd ON fd.vehicle_id = d.vehicle_id AND fd.day = d.day
    WHERE d.last_end IS NOT NULL
  ),
  reread_days AS (
    SELECT rd.vehicle_id, rd.year_first_day, rd.day
    FROM rd
    WHERE rd.last_from = 'trips'
      AND rd.last_end >= coalesce(
        (SELECT max(k.last_end) FROM rd AS k
         WHERE k.vehicle_id = rd.vehicle_id AND k.year_first_day = rd.year_first_day AND k.last_from = 'facts'),
        rd.last_end)
  ),
  relast_trip AS (
    SELECT vehicle_id, year_first_day, arg_max(end_m, end_at) AS end_m, max(end_at) AS end_at,
      arg_max(trip_id, end_at) AS trip_id
    FROM (
      SELECT vehicle_id, year_first_day, last_end AS end_at, last_end_m AS end_m, last_trip AS trip_id
      FROM rd WHERE last_from = 'facts'
      UNION ALL
      -- a day's trips with a usable reading and not left out (one left out has the same vehicle,
      -- start and end as a trip of xt: that is all the overlap depends on)
      SELECT u.vehicle_id, u.year_first_day, t.end_time, t.end_odometer_m, t.trip_id
      FROM trips AS t JOIN reread_days AS u
        ON u.vehicle_id = t.vehicle_id
        AND t.start_time >= local_range_start(zone, u.day) AND t.start_time < local_range_end(zone, u.day)
      WHERE t.account = acct
        AND logbook_reading_km(t.start_odometer_m, t.end_odometer_m) IS NOT NULL
        AND NOT EXISTS (
          SELECT 1 FROM xt
          WHERE xt.vehicle_id = t.vehicle_id AND xt.start_time = t.start_time AND xt.end_time = t.end_time)
    )
    GROUP BY ALL
  ),
  -- the last counted trip of each year (and of the days before the first one: it may end in it)
  last_trip AS (
    SELECT p.vehicle_id, p.year_first_day,
      CASE WHEN mv.vehicle_id IS NULL THEN p.end_m ELSE ml.end_m END AS end_m,
      CASE WHEN mv.vehicle_id IS NULL THEN p.end_at ELSE ml.end_at END AS end_at,
      -- the facts' last trip's id is read below, for the few years that show it
      CASE WHEN mv.vehicle_id IS NOT NULL THEN ml.trip_id END AS trip_id
    FROM per_year AS p
    LEFT JOIN relast AS mv ON mv.vehicle_id = p.vehicle_id AND mv.year_first_day = p.year_first_day
    LEFT JOIN relast_trip AS ml ON ml.vehicle_id = p.vehicle_id AND ml.year_first_day = p.year_first_day
    WHERE CASE WHEN mv.vehicle_id IS NULL THEN p.end_at ELSE ml.end_at END IS NOT NULL
  ),
  trip_totals AS (
    SELECT vehicle_id, year_first_day, trips, business_km, private_km, unclassified_km,
      unclassified_trips, trips_not_counted
    FROM per_year
    WHERE year_first_day >= tax_year_first_day(from_day, start_mmdd)
  ),
  w AS (
    SELECT y.year_first_day, o.*
    FROM y, odometer_windows_classified(
      acct, zone,
      tax_year_first_day(from_day, start_mmdd),
      tax_year_last_day(tax_year_first_day(to_day, start_mmdd))) AS o
    WHERE o.window_start >= local_range_start(zone, y.year_first_day)
      AND o.window_start < local_range_end(zone, y.year_last_day)
  ),
  ow AS (
    SELECT
      vehicle_id,
      year_first_day,
      sum(counted_m) AS odometer_m,
      count(*) FILTER (WHERE NOT counted) AS left_out_windows,
      arg_min(start_odometer_m, window_start) AS opening_m,
      min(window_start) AS first_window_start,
      arg_min(end_odometer_m, window_start) AS first_window_end_m,
      arg_max(end_odometer_m, window_end) AS closing_m,
      max(window_end) AS last_window_end
    FROM w
    GROUP BY vehicle_id, year_first_day
  ),
  moved AS (
    SELECT
      ow.*,
      -- out: the year's last trip ends beyond its last reading
      CASE WHEN lt.end_at > ow.last_window_end AND lt.end_m > ow.closing_m THEN lt.end_m - ow.closing_m END
        AS out_m,
      lt.end_at AS out_at,
      lt.trip_id AS out_trip,
      -- in: the previous year's last trip ends inside this year's first window (within its readings:
      -- a reset later in the year does not move the opening)
      CASE WHEN pt.end_at > ow.first_window_start AND pt.end_m > ow.opening_m
        THEN least(pt.end_m, ow.first_window_end_m) - ow.opening_m END AS in_m,
      pt.end_at AS in_at,
      pt.trip_id AS in_trip
    FROM ow
    LEFT JOIN last_trip AS lt ON lt.vehicle_id = ow.vehicle_id AND lt.year_first_day = ow.year_first_day
    LEFT JOIN last_trip AS pt
      ON pt.vehicle_id = ow.vehicle_id AND pt.year_first_day = (ow.year_first_day - INTERVAL 1 YEAR)::DATE
  ),
  -- the id of the trip a year opens or closes at, when it is the facts' last trip of its year:
  -- their row whose last trip with a usable reading ends then (no left-out trip of the vehicle
  -- ends then: relast), read for those years only (a text column of every row costs ~0.1 s a year)
  trip_ids AS (
    SELECT f.vehicle_id, f.last_end, min(f.last_trip) AS trip_id
    FROM trip_day_facts_in(acct, zone, (tax_year_first_day(from_day, start_mmdd) - INTERVAL 2 DAY)::DATE, tax_year_last_day(tax_year_first_day(to_day, start_mmdd))) AS f
    JOIN (
      SELECT vehicle_id, out_at AS at FROM moved WHERE out_m IS NOT NULL AND out_trip IS NULL
      UNION
      SELECT vehicle_id, in_at FROM moved WHERE in_m IS NOT NULL AND in_trip IS NULL
    ) AS m ON m.vehicle_id = f.vehicle_id AND m.at = f.last_end
    GROUP BY ALL
  ),
  odo AS (
    SELECT
      moved.vehicle_id,
      moved.year_first_day,
      (odometer_m + coalesce(out_m, 0) - coalesce(in_m, 0)) / 1000.0 AS odometer_km,
      left_out_windows,
      (opening_m + coalesce(in_m, 0)) / 1000.0 AS opening_odometer_km,
      CASE WHEN in_m IS NULL THEN timezone(zone, first_window_start)::DATE ELSE timezone(zone, in_at)::DATE END
        AS opening_odometer_day,
      CASE WHEN in_m IS NOT NULL THEN coalesce(in_trip, ii.trip_id) END AS opening_odometer_trip,
      (closing_m + coalesce(out_m, 0)) / 1000.0 AS closing_odometer_km,
      CASE WHEN out_m IS NULL THEN (timezone(zone, last_window_end) - INTERVAL 1 SECOND)::DATE
        ELSE timezone(zone, out_at)::DATE END AS closing_odometer_day,
      CASE WHEN out_m IS NOT NULL THEN coalesce(out_trip, oi.trip_id) END AS closing_odometer_trip
    FROM moved
    LEFT JOIN trip_ids AS oi ON oi.vehicle_id = moved.vehicle_id AND oi.last_end = moved.out_at
    LEFT JOIN trip_ids AS ii ON ii.vehicle_id = moved.vehicle_id AND ii.last_end = moved.in_at
  )
  SELECT * FROM trip_totals FULL JOIN odo USING (vehicle_id, year_first_day);
