-- The prices rules, once (the prices file FLEETSYNC_PRICES, stored in the price_* tables by
-- src/prices/store.ts). Without a loaded file every price, charge and CO₂ figure is blank.
--
-- vehicle_profiles(acct): each vehicle's fuel type and class: the file's vehicle entry, else
-- 'electric' for a battery vehicle without fuel sensors, else the account's defaults; NULL when
-- no prices file was loaded.
CREATE OR REPLACE TEMP MACRO vehicle_profiles(acct) AS TABLE
  SELECT
    v.vehicle_id,
    CASE WHEN ps.account IS NOT NULL THEN
      coalesce(
        pv.fuel_type,
        CASE
          WHEN v.electric_battery AND NOT (v.fuel_canbus_consumed OR v.fuel_canbus_level OR v.fuel_analog_level)
            THEN 'electric'
        END,
        ps.default_fuel_type
      )
    END AS fuel_type,
    CASE WHEN ps.account IS NOT NULL THEN coalesce(pv.vehicle_class, ps.default_vehicle_class) END AS vehicle_class,
    ps.currency,
    ps.grid_kg_per_kwh
  FROM vehicles AS v
  LEFT JOIN price_source AS ps ON ps.account = v.account
  LEFT JOIN price_vehicles AS pv ON pv.account = v.account AND pv.vehicle_id = v.vehicle_id
  WHERE v.account = acct;
-- toll_passage_charges(acct, zone, from_day, to_day): every toll passage (toll_passages.sql)
-- entered on the local days [from_day, to_day], with
-- the tariff of its geofence and the vehicle's class on the local day it entered: the tariff with
-- the latest valid_from on or before that day, if that tariff's valid_to has not passed. No such
-- tariff: charge NULL and tariff_status 'no_tariff' (never free); no prices file: 'no_prices'.
CREATE OR REPLACE TEMP MACRO toll_passage_charges(acct, zone, from_day, to_day) AS TABLE
  WITH p AS (
    SELECT
      gv.vehicle_id,
      gv.registration,
      gv.geofence_id,
      gv.geofence_name,
      gv.enter_time,
      gv.exit_time,
      timezone(zone, gv.enter_time)::DATE AS local_day,
      vp.vehicle_class
    FROM toll_passages(acct) AS gv
    LEFT JOIN vehicle_profiles(acct) AS vp ON vp.vehicle_id = gv.vehicle_id
    WHERE gv.enter_time >= local_range_start(zone, from_day) AND gv.enter_time < local_range_end(zone, to_day)
  ),
  -- The tariffs that can apply to these passages, found by a scan (no sort or join over the whole
  -- file, so a prices file of 100,000 tariffs costs about what one of ten does): per geofence and
  -- class, the last that began on or before the first passage's day, and those that began after
  -- it up to the last passage's day.
  span AS (SELECT min(local_day) AS first_day, max(local_day) AS last_day FROM p),
  floor AS (
    SELECT pt.geofence_id, pt.vehicle_class, max(pt.valid_from) AS valid_from
    FROM price_tolls AS pt, span
    WHERE pt.account = acct AND pt.valid_from <= span.first_day
    GROUP BY ALL
  ),
  candidates AS (
    SELECT pt.*
    FROM price_tolls AS pt
    CROSS JOIN span
    LEFT JOIN floor AS f ON f.geofence_id = pt.geofence_id AND f.vehicle_class = pt.vehicle_class
    WHERE pt.account = acct
      AND pt.valid_from <= span.last_day
      AND (f.valid_from IS NULL OR pt.valid_from >= f.valid_from)
  ),
  t AS (
    SELECT
      p.*,
      pt.valid_from,
      pt.valid_to,
      pt.charge
    -- the latest valid_from on or before the passage's day
    FROM p
    ASOF LEFT JOIN candidates AS pt
      ON pt.geofence_id = p.geofence_id
      AND pt.vehicle_class = p.vehicle_class
      AND p.local_day >= pt.valid_from
  )
  SELECT
    vehicle_id, registration, geofence_id, geofence_name, enter_time, exit_time, local_day, vehicle_class,
    CASE WHEN valid_to IS NULL OR valid_to >= local_day THEN valid_from END AS valid_from,
    CASE WHEN valid_to IS NULL OR valid_to >= local_day THEN charge END AS charge,
    CASE
      WHEN vehicle_class IS NULL THEN 'no_prices'
      WHEN charge IS NULL OR (valid_to IS NOT NULL AND valid_to < local_day) THEN 'no_tariff'
      ELSE 'tariff'
    END AS tariff_status
  FROM t;
-- vehicle_month_costs(acct, zone, from_day, to_day): per vehicle × local month of the range (every
-- vehicle of the account, every month: a month with nothing synced is a row of blanks), the
-- counted distance and fuel (the mileage and fuel models), the battery energy of the EV energy
-- stream (kWh drawn, over its synced local days), the fuel cost (litres — for an electric
-- vehicle kWh — × the month's price of the vehicle's fuel type), the toll passages and their
-- charges, and CO₂ (litres × the fuel type's factor; kWh × the grid factor for an electric
-- vehicle). Unknown stays NULL: no price or factor; toll visits not synced in the month (passages
-- too); any passage of the month without a tariff (toll_charges NULL; charged_known sums the
-- passages with one, and is NULL too when no passage of the month has one); no fuel figure; no
-- synced EV energy day.
CREATE OR REPLACE TEMP MACRO vehicle_month_costs(acct, zone, from_day, to_day) AS TABLE
  WITH
  rng AS (SELECT * FROM local_months(zone, from_day, to_day)),
  dist AS (
    SELECT vehicle_id, period, sum(counted_m) AS distance_m
    FROM odometer_windows_classified(acct, zone, from_day, to_day)
    GROUP BY vehicle_id, period
  ),
  fuel AS (
    SELECT vehicle_id, period, sum(used_l) AS used_l, min(source) AS source
    FROM fuel_windows_classified(acct, zone, from_day, to_day)
    GROUP BY vehicle_id, period
  ),
  -- the toll passages and their charges (toll_passage_charges) from the daily facts
  -- (queries/models/daily_facts.sql), summed by local month
  tolls AS (
    SELECT
      f.vehicle_id,
      month_of_day(f.day) AS period,
      sum(f.toll_passages) AS passages,
      sum(f.toll_no_tariff) AS no_tariff,
      sum(f.toll_charged) AS charged
    FROM vehicle_day_facts(acct, zone, months_first_day(from_day), months_last_day(to_day)) AS f
    WHERE f.stream = 'visits'
    GROUP BY f.vehicle_id, period
  ),
  -- EV energy: the days of the month whose ev_energy window was synced (a 25-hour day's two
  -- windows are one day), and the kWh stored for them; a month without one is unknown
  ev_days AS (
    SELECT
      try_cast(l.scope AS BIGINT) AS vehicle_id,
      local_month(l.window_start, zone) AS period,
      count(DISTINCT timezone(zone, l.window_start)::DATE) AS days
    FROM ledger AS l, rng
    WHERE l.account = acct AND l.stream = 'ev_energy' AND l.status IN ('done', 'flagged', 'incomplete')
      AND l.window_start >= rng.t0 AND l.window_start < rng.t1
    GROUP BY ALL
  ),
  ev AS (
    SELECT
      d.vehicle_id,
      d.period,
      d.days,
      coalesce(sum(e.energy_consumed_kwh), 0) AS energy_kwh
    FROM ev_days AS d
    LEFT JOIN ev_energy AS e
      ON e.account = acct AND e.vehicle_id = d.vehicle_id AND local_month(e.window_start, zone) = d.period
    GROUP BY ALL
  ),
  -- the local months in which toll visits are synced at all (else their passages are unknown)
  visits_synced AS (
    SELECT DISTINCT local_month(l.window_start, zone) AS period
    FROM ledger AS l, rng
    WHERE l.account = acct AND l.stream = 'visits' AND l.status IN ('done', 'flagged')
      AND l.window_start >= rng.t0 AND l.window_start < rng.t1
  ),
  -- every vehicle × every local month of the range is a row (issue 25), so a month never synced
  -- is there, blank, and a total over it says it is partial
  k AS (
    SELECT v.vehicle_id, m.period FROM vehicle_departments(acct) AS v, range_months(from_day, to_day) AS m
    UNION
    SELECT vehicle_id, period FROM dist
    UNION
    SELECT vehicle_id, period FROM fuel
    UNION
    SELECT vehicle_id, period FROM tolls
    UNION
    SELECT vehicle_id, period FROM ev
  )
  SELECT
    k.vehicle_id,
    k.period,
    dist.distance_m,
    fuel.used_l,
    fuel.source,
    prof.fuel_type,
    prof.vehicle_class,
    prof.currency,
    pf.price_per_l,
    ev.energy_kwh,
    ev.days AS energy_days,
    CASE WHEN prof.fuel_type = 'electric' THEN ev.energy_kwh ELSE fuel.used_l END * pf.price_per_l AS fuel_cost,
    CASE WHEN vs.period IS NOT NULL THEN coalesce(tolls.passages, 0) END AS passages,
    CASE WHEN vs.period IS NOT NULL THEN coalesce(tolls.no_tariff, 0) END AS no_tariff,
    -- blank, not 0, when the month has passages and none of them has a tariff (issue 25)
    CASE
      WHEN vs.period IS NOT NULL AND prof.vehicle_class IS NOT NULL
        AND NOT (coalesce(tolls.passages, 0) > 0 AND tolls.charged IS NULL)
        THEN coalesce(tolls.charged, 0)
    END AS charged_known,
    CASE
      WHEN vs.period IS NULL OR prof.vehicle_class IS NULL THEN NULL
      WHEN coalesce(tolls.no_tariff, 0) > 0 THEN NULL
      ELSE coalesce(tolls.charged, 0)
    END AS toll_charges,
    CASE
      WHEN prof.fuel_type = 'electric' THEN ev.energy_kwh * prof.grid_kg_per_kwh
      ELSE fuel.used_l * ef.kg_per_l
    END AS co2_kg
  FROM k
  LEFT JOIN dist ON dist.vehicle_id = k.vehicle_id AND dist.period = k.period
  LEFT JOIN fuel ON fuel.vehicle_id = k.vehicle_id AND fuel.period = k.period
  LEFT JOIN tolls ON tolls.vehicle_id = k.vehicle_id AND tolls.period = k.period
  LEFT JOIN ev ON ev.vehicle_id = k.vehicle_id AND ev.period = k.period
  LEFT JOIN visits_synced AS vs ON vs.period = k.period
  LEFT JOIN vehicle_profiles(acct) AS prof ON prof.vehicle_id = k.vehicle_id
  LEFT JOIN price_fuel AS pf ON pf.account = acct AND pf.fuel_type = prof.fuel_type AND pf.period = k.period
  LEFT JOIN price_emission_factors AS ef ON ef.account = acct AND ef.fuel_type = prof.fuel_type;
