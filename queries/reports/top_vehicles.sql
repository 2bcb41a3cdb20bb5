-- The $limit vehicles with the most odometer distance in the range (the local months it
-- touches, from the same models as mileage.sql and fuel.sql), with their fuel, toll passages and
-- trips.
WITH
veh AS (SELECT * FROM selected_vehicles($account, $vehicle::BIGINT, $department::VARCHAR)),
odo AS (
  SELECT vehicle_id, sum(round(m / 1000.0, 3)) AS km, sum(x) AS excluded FROM (
    SELECT o.vehicle_id, sum(o.counted_m) AS m, count(*) FILTER (WHERE NOT o.counted) AS x
    FROM odometer_windows_classified($account, $zone, $from_day, $to_day) AS o
    GROUP BY o.vehicle_id, o.period
  ) GROUP BY vehicle_id
),
fu AS (
  SELECT vehicle_id, sum(round(l, 3)) AS l FROM (
    SELECT f.vehicle_id, sum(f.used_l) AS l
    FROM fuel_windows_classified($account, $zone, $from_day, $to_day) AS f
    GROUP BY f.vehicle_id, f.period, f.source
  ) GROUP BY vehicle_id
),
tl AS (
  SELECT gv.vehicle_id, count(*) AS n
  FROM toll_passages($account) AS gv
  WHERE gv.enter_time >= local_range_start($zone, $from_day) AND gv.enter_time < local_range_end($zone, $to_day)
  GROUP BY 1
),
tr AS (
  SELECT t.vehicle_id, count(*) AS n
  FROM trips AS t
  WHERE t.account = $account AND t.start_time >= local_range_start($zone, $from_day) AND t.start_time < local_range_end($zone, $to_day)
  GROUP BY 1
)
SELECT
  veh.registration,
  veh.vehicle_id,
  veh.department,
  round(odo.km, 3)::DOUBLE AS distance_km,
  coalesce(odo.excluded, 0)::INTEGER AS excluded_periods,
  round(fu.l, 3)::DOUBLE AS fuel_used_l,
  coalesce(tl.n, 0)::INTEGER AS toll_passages,
  coalesce(tr.n, 0)::INTEGER AS trips
FROM veh
LEFT JOIN odo ON odo.vehicle_id = veh.vehicle_id
LEFT JOIN fu ON fu.vehicle_id = veh.vehicle_id
LEFT JOIN tl ON tl.vehicle_id = veh.vehicle_id
LEFT JOIN tr ON tr.vehicle_id = veh.vehicle_id
ORDER BY odo.km DESC NULLS LAST, veh.registration
LIMIT $limit::INTEGER;
