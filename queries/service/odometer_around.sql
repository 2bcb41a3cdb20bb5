-- The vehicle's synced odometer readings nearest a service day, in km (src/service/store.ts:
-- `service done` refuses a reading far from them): `before`, the latest at or before the day's
-- first instant; `after`, the earliest at or after its last. A window's start reading is at its
-- start; its end reading at its end, or when it was fetched if that was earlier (a window still
-- open holds the reading of then). Of two readings at one instant, the one that refuses less.
-- `crossed`: an odometer reset or a tracker swap (a window the mileage rule leaves out:
-- odometer_windows_counted, queries/models/odometer_windows.sql) lies between the reading and
-- the day, so the reading says nothing about the service's. No row: no reading on that side.
WITH
r AS (
  SELECT window_start AS t, start_odometer_m AS m
  FROM odometer_windows_counted($account)
  WHERE vehicle_id = $vehicle_id AND start_odometer_m IS NOT NULL
  UNION ALL
  SELECT least(o.window_end, coalesce(l.fetched_at, o.window_end)) AS t, o.end_odometer_m AS m
  FROM odometer_windows_counted($account) AS o
  LEFT JOIN ledger AS l
    ON l.account = o.account AND l.stream = 'odometer' AND l.scope = o.vehicle_id::VARCHAR
    AND l.window_start = o.window_start AND l.window_end = o.window_end
  WHERE o.vehicle_id = $vehicle_id AND o.end_odometer_m IS NOT NULL
),
swaps AS (
  SELECT window_start, window_end
  FROM odometer_windows_counted($account)
  WHERE vehicle_id = $vehicle_id AND NOT counted
),
day AS (
  SELECT make_timestamptz($day_start_ms::BIGINT * 1000) AS s, make_timestamptz($day_end_ms::BIGINT * 1000) AS e
),
b AS (SELECT r.t, r.m FROM r, day WHERE r.t <= day.s ORDER BY r.t DESC, r.m ASC LIMIT 1),
a AS (SELECT r.t, r.m FROM r, day WHERE r.t >= day.e ORDER BY r.t ASC, r.m DESC LIMIT 1)
SELECT
  'before' AS side,
  epoch_ms(b.t)::DOUBLE AS at_ms,
  b.m / 1000.0 AS km,
  EXISTS (SELECT 1 FROM swaps, day WHERE swaps.window_end > b.t AND swaps.window_start < day.e) AS crossed
FROM b
UNION ALL
SELECT
  'after' AS side,
  epoch_ms(a.t)::DOUBLE AS at_ms,
  a.m / 1000.0 AS km,
  EXISTS (SELECT 1 FROM swaps, day WHERE swaps.window_end > day.s AND swaps.window_start < a.t) AS crossed
FROM a;
