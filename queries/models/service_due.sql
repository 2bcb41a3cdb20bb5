-- Service due, the rule once (issue 28 item 1; docs/service.md): the service plan
-- (service_plan_source, service_intervals, service_records: src/service/store.ts) over the
-- odometer rule (odometer_windows.sql), as of now_ts in the account's zone.
--
-- service_due(acct, zone, now_ts, forecast_days, min_days): one row per vehicle of the account with
--   interval     the most specific interval of the plan: the vehicle's, else its class's (the prices
--                file's vehicle_profiles class), else the whole fleet's; every_km and/or every_months
--   last service the latest service recorded (plan file or `fleetsync service done`); its instant is
--                the local midnight that starts its day (the day's driving counts after it)
--   since_m      the distance counted since that instant: the odometer windows the rule counts
--                (odometer_flag NULL; a reset or a tracker swap is left out, never a new reading),
--                a window that began before the service by the share of its time after it, up to
--                as_of (the windows are local months; flagged ones are local days and never
--                straddle it).
--                NULL (unknown) when the odometer ledger does not cover the whole time since the
--                service, or a counted window has no distance
--   as_of        the instant the vehicle's odometer is known up to (its latest pulled window, not
--                after now_ts)
--   km_per_day   the vehicle's own recent distance: its counted, settled (ledger done) odometer
--                windows that reach into the forecast_days before as_of, whole; NULL when they
--                hold fewer than min_days (never a guess from zero); basis_days says how many
--   status       overdue (past the km or the date) / due (within the plan's warning km or days, or
--                forecast to reach the km within the warning days) / ok / unknown (no plan, no
--                interval, no last service, or a side that cannot be known while the other is ok)
--   reason       why, in words
CREATE OR REPLACE TEMP MACRO service_due(acct, zone, now_ts, forecast_days, min_days) AS TABLE
  WITH
  src AS (SELECT warn_km, warn_days FROM service_plan_source WHERE account = acct),
  veh AS (
    SELECT v.vehicle_id, v.registration, v.department, p.vehicle_class
    FROM vehicle_departments(acct) AS v
    LEFT JOIN vehicle_profiles(acct) AS p ON p.vehicle_id = v.vehicle_id
  ),
  iv AS (
    SELECT
      veh.vehicle_id,
      i.every_km,
      i.every_months,
      CASE WHEN i.vehicle_id IS NOT NULL THEN 'vehicle' WHEN i.vehicle_class IS NOT NULL THEN 'class' ELSE 'fleet' END
        AS interval_scope
    FROM veh
    JOIN service_intervals AS i
      ON i.account = acct
      AND (i.vehicle_id = veh.vehicle_id
        OR (i.vehicle_id IS NULL AND (i.vehicle_class = veh.vehicle_class OR i.vehicle_class IS NULL)))
    QUALIFY row_number() OVER (
      PARTITION BY veh.vehicle_id
      ORDER BY CASE WHEN i.vehicle_id IS NOT NULL THEN 0 WHEN i.vehicle_class IS NOT NULL THEN 1 ELSE 2 END
    ) = 1
  ),
  last AS (
    SELECT vehicle_id, service_day, odometer_km, timezone(zone, service_day::TIMESTAMP) AS svc_t
    FROM service_records
    WHERE account = acct
    QUALIFY row_number() OVER (PARTITION BY vehicle_id ORDER BY service_day DESC, recorded_at DESC) = 1
  ),
  led AS (
    SELECT TRY_CAST(scope AS BIGINT) AS vehicle_id, window_start, window_end, status
    FROM ledger
    WHERE account = acct AND stream = 'odometer' AND status IN ('done', 'flagged', 'incomplete')
  ),
  upto AS (
    SELECT vehicle_id, least(max(window_end), now_ts) AS as_of, min(window_start) AS first_start
    FROM led GROUP BY vehicle_id
  ),
  cov AS (
    SELECT
      s.vehicle_id,
      coalesce(sum(greatest(0, epoch(least(l.window_end, a.as_of)) - epoch(greatest(l.window_start, s.svc_t)))), 0)
        AS covered_s
    FROM last AS s
    JOIN upto AS a ON a.vehicle_id = s.vehicle_id
    LEFT JOIN led AS l ON l.vehicle_id = s.vehicle_id AND l.window_end > s.svc_t AND l.window_start < a.as_of
    GROUP BY s.vehicle_id
  ),
  odo AS (SELECT * FROM odometer_windows_counted(acct)),
  since AS (
    SELECT
      o.vehicle_id,
      sum(o.distance_m * CASE WHEN o.window_start >= s.svc_t THEN 1.0
        ELSE (epoch(least(o.window_end, a.as_of)) - epoch(s.svc_t))
          / nullif(epoch(least(o.window_end, a.as_of)) - epoch(o.window_start), 0) END)
        FILTER (WHERE o.counted) AS since_m,
      count(*) FILTER (WHERE o.counted AND o.distance_m IS NULL) AS no_distance,
      count(*) FILTER (WHERE NOT o.counted) AS excluded
    FROM odo AS o
    JOIN last AS s ON s.vehicle_id = o.vehicle_id
    JOIN upto AS a ON a.vehicle_id = o.vehicle_id
    WHERE o.window_end > s.svc_t AND o.window_start < a.as_of
    GROUP BY o.vehicle_id
  ),
  rate AS (
    SELECT
      o.vehicle_id,
      sum(o.distance_m) AS rate_m,
      sum(epoch(o.window_end) - epoch(o.window_start)) / 86400.0 AS basis_days
    FROM odo AS o
    JOIN led AS l
      ON l.vehicle_id = o.vehicle_id AND l.window_start = o.window_start AND l.window_end = o.window_end
      AND l.status = 'done'
    JOIN upto AS a ON a.vehicle_id = o.vehicle_id
    WHERE o.counted AND o.distance_m IS NOT NULL
      AND o.window_end > a.as_of - to_days(forecast_days::INTEGER) AND o.window_start < a.as_of
    GROUP BY o.vehicle_id
  ),
  k AS (
    SELECT
      veh.*,
      iv.every_km,
      iv.every_months,
      iv.interval_scope,
      last.service_day,
      last.odometer_km AS service_odometer_km,
      last.svc_t,
      a.as_of,
      a.first_start,
      -- No service to count from (or no odometer at all): how many windows were left out since is unknown.
      CASE WHEN last.svc_t IS NULL OR a.as_of IS NULL THEN NULL ELSE coalesce(since.excluded, 0) END AS excluded,
      CASE
        WHEN last.svc_t IS NULL OR a.as_of IS NULL THEN NULL
        WHEN last.svc_t >= a.as_of THEN 0.0
        WHEN cov.covered_s < epoch(a.as_of) - epoch(last.svc_t) OR coalesce(since.no_distance, 0) > 0 THEN NULL
        ELSE coalesce(since.since_m, 0)
      END AS since_m,
      rate.basis_days,
      CASE WHEN rate.basis_days >= min_days THEN rate.rate_m / 1000.0 / rate.basis_days END AS km_per_day,
      CAST(timezone(zone, now_ts) AS DATE) AS today
    FROM veh
    LEFT JOIN iv ON iv.vehicle_id = veh.vehicle_id
    LEFT JOIN last ON last.vehicle_id = veh.vehicle_id
    LEFT JOIN upto AS a ON a.vehicle_id = veh.vehicle_id
    LEFT JOIN cov ON cov.vehicle_id = veh.vehicle_id
    LEFT JOIN since ON since.vehicle_id = veh.vehicle_id
    LEFT JOIN rate ON rate.vehicle_id = veh.vehicle_id
  ),
  n AS (
    SELECT
      k.*,
      k.every_km - k.since_m / 1000.0 AS km_remaining,
      CAST(k.service_day + to_months(k.every_months::INTEGER) AS DATE) AS next_service_day
    FROM k
  ),
  f AS (
    SELECT
      n.*,
      n.next_service_day - n.today AS days_remaining,
      CASE WHEN n.km_remaining IS NOT NULL AND n.km_per_day > 0 THEN
        CAST(timezone(zone, n.as_of + to_seconds(CAST(n.km_remaining / n.km_per_day * 86400 AS BIGINT))) AS DATE)
      END AS forecast_day
    FROM n
  ),
  s AS (
    SELECT
      f.*,
      CASE
        WHEN f.every_km IS NULL OR f.service_day IS NULL THEN NULL
        WHEN f.km_remaining IS NULL THEN 'unknown'
        WHEN f.km_remaining < 0 THEN 'overdue'
        WHEN f.km_remaining <= src.warn_km OR f.forecast_day - f.today <= src.warn_days THEN 'due'
        ELSE 'ok'
      END AS km_state,
      CASE
        WHEN f.every_months IS NULL OR f.service_day IS NULL THEN NULL
        WHEN f.days_remaining < 0 THEN 'overdue'
        WHEN f.days_remaining <= src.warn_days THEN 'due'
        ELSE 'ok'
      END AS date_state,
      src.warn_km,
      src.warn_days,
      src.warn_km IS NOT NULL AS has_plan
    FROM f LEFT JOIN src ON true
  )
  SELECT
    s.*,
    CASE
      WHEN NOT s.has_plan OR s.interval_scope IS NULL OR s.service_day IS NULL THEN 'unknown'
      WHEN 'overdue' IN (s.km_state, s.date_state) THEN 'overdue'
      WHEN 'due' IN (s.km_state, s.date_state) THEN 'due'
      WHEN 'unknown' IN (s.km_state, s.date_state) THEN 'unknown'
      ELSE 'ok'
    END AS status,
    CASE
      WHEN NOT s.has_plan THEN 'no service plan loaded (FLEETSYNC_SERVICE_PLAN)'
      WHEN s.interval_scope IS NULL THEN 'no service interval in the plan applies to this vehicle'
      WHEN s.service_day IS NULL THEN 'no last service recorded (the plan file or `fleetsync service done`)'
      ELSE nullif(concat_ws('; ',
        CASE s.km_state
          WHEN 'overdue' THEN printf('%,.0f km past the interval', -s.km_remaining)
          WHEN 'due' THEN CASE WHEN s.km_remaining <= s.warn_km THEN printf('%,.0f km to go', s.km_remaining)
            ELSE printf('forecast to reach the km on %s', s.forecast_day) END
          WHEN 'unknown' THEN CASE
            WHEN s.as_of IS NULL THEN 'km since the last service unknown: the odometer was never synced'
            WHEN s.first_start > s.svc_t
              THEN printf('km since the last service unknown: the odometer is synced from %s only, not back to the service on %s',
                CAST(timezone(zone, s.first_start) AS DATE), s.service_day)
            ELSE printf('km since the last service unknown: the odometer is not synced for all of the time since %s', s.service_day)
          END
        END,
        CASE s.date_state
          WHEN 'overdue' THEN printf('%d days past the date', -s.days_remaining)
          WHEN 'due' THEN printf('%d days to the date', s.days_remaining)
        END,
        CASE WHEN s.every_km IS NOT NULL AND s.km_remaining IS NOT NULL AND s.km_per_day IS NULL
          THEN printf('no forecast: %.1f days of counted odometer known in the last %d (%d needed)',
            coalesce(s.basis_days, 0), forecast_days::INTEGER, min_days::INTEGER)
          WHEN s.every_km IS NOT NULL AND s.km_remaining IS NOT NULL AND s.km_per_day = 0
          THEN printf('no forecast: no distance counted in the last %d days', forecast_days::INTEGER)
        END
      ), '')
    END AS reason
  FROM s;
