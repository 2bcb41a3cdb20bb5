-- Vehicle activity per local day: the rule behind the utilisation reports, written once.
--
-- activity_days(acct, zone, from_day, to_day): every known vehicle × local day of the range
-- (both inclusive), with
--   synced        the day's GET /vehicles/activity window is done in the ledger;
--   open_late     not synced, but pulled and still open for late data (an incomplete window
--                 inside the look-back): its figures are not shown yet, and it is not a gap;
--   driving_s, idle_s   engine-on seconds that day as the API gave them; NULL when the day was
--                 never synced, or the API did not list the vehicle that day (unknown, never 0);
--   working_day   the day is one of the account's working weekdays (account_working_hours,
--                 default Monday–Friday; 07:00–18:00);
--   after_hours_s engine-on seconds that day outside the working hours (all of them on a
--                 non-working day), from the synced trips (a trip is engine-on from its start to
--                 its end); NULL when the day's activity or trips are not synced.
CREATE OR REPLACE TEMP MACRO activity_days(acct, zone, from_day, to_day) AS TABLE
  WITH
  wh AS (SELECT * FROM working_hours_of(acct)),
  days AS (
    SELECT
      d::DATE AS day,
      timezone(zone, d::DATE::TIMESTAMP) AS t0,
      timezone(zone, (d::DATE + 1)::TIMESTAMP) AS t1,
      timezone(zone, d::DATE::TIMESTAMP + to_minutes(wh.start_min)) AS w0,
      timezone(zone, d::DATE::TIMESTAMP + to_minutes(wh.end_min)) AS w1,
      list_contains(wh.weekdays, isodow(d::DATE)) AS working_day
    FROM unnest(generate_series(from_day::DATE::TIMESTAMP, to_day::DATE::TIMESTAMP, INTERVAL 1 DAY)) AS g(d)
    CROSS JOIN wh
  ),
  done AS (
    SELECT stream, window_start, window_end, status IN ('done', 'flagged') AS settled FROM ledger
    WHERE account = acct AND stream IN ('activity', 'trips') AND status IN ('done', 'flagged', 'incomplete')
  ),
  cov AS (
    SELECT
      days.*,
      EXISTS (
        SELECT 1 FROM done
        WHERE settled AND stream = 'activity' AND window_start <= days.t0 AND window_end >= days.t1
      ) AS synced,
      EXISTS (
        SELECT 1 FROM done
        WHERE settled AND stream = 'trips' AND window_start <= days.t0 AND window_end >= days.t1
      ) AS trips_synced,
      EXISTS (
        SELECT 1 FROM done
        WHERE NOT settled AND stream = 'activity' AND window_start <= days.t0 AND window_end >= days.t1
      ) AS pulled_open
    FROM days
  ),
  veh AS (
    SELECT vehicle_id, registration, department FROM vehicle_departments(acct)
    UNION
    SELECT DISTINCT a.vehicle_id, a.registration, NULL FROM vehicle_activity AS a
    WHERE a.account = acct AND a.vehicle_id NOT IN (SELECT vehicle_id FROM vehicle_departments(acct))
  ),
  after AS (
    SELECT
      t.vehicle_id,
      cov.day,
      sum(
        epoch(least(t.end_time, cov.t1)) - epoch(greatest(t.start_time, cov.t0))
        - CASE WHEN cov.working_day
            THEN greatest(0, epoch(least(t.end_time, cov.w1)) - epoch(greatest(t.start_time, cov.w0)))
            ELSE 0 END
      ) AS after_s
    FROM trips AS t
    JOIN cov ON t.start_time < cov.t1 AND t.end_time > cov.t0
    WHERE t.account = acct
      -- the same overlap with the range's bounds as constants, so the scan reads only the row
      -- groups the range's days can overlap (the join alone read every trip of the account)
      AND t.start_time < local_range_end(zone, to_day)
      AND t.end_time > local_range_start(zone, from_day)
    GROUP BY t.vehicle_id, cov.day
  )
  SELECT
    veh.vehicle_id,
    veh.registration,
    veh.department,
    cov.day,
    cov.t0 AS day_start,
    cov.synced,
    NOT cov.synced AND cov.pulled_open AS open_late,
    cov.working_day,
    CASE WHEN cov.synced THEN a.driving_s END AS driving_s,
    CASE WHEN cov.synced THEN a.idle_s END AS idle_s,
    CASE WHEN cov.synced THEN a.first_ignition_on END AS first_ignition_on,
    CASE WHEN cov.synced THEN a.last_ignition_off END AS last_ignition_off,
    CASE WHEN cov.synced AND cov.trips_synced AND a.vehicle_id IS NOT NULL THEN coalesce(after.after_s, 0) END
      AS after_hours_s
  FROM veh
  CROSS JOIN cov
  LEFT JOIN vehicle_activity AS a
    ON a.account = acct AND a.vehicle_id = veh.vehicle_id AND a.day_start = cov.t0
  LEFT JOIN after ON after.vehicle_id = veh.vehicle_id AND after.day = cov.day;
