-- The $limit vehicles with the most odometer distance in the range (the local months it
-- touches, from the same models as mileage.sql and fuel.sql), with their fuel, toll passages and
-- trips, all read from the daily facts (queries/models/daily_facts.sql).
WITH
veh AS (SELECT * FROM selected_vehicles($account, $vehicle::BIGINT, $department::VARCHAR)),
-- the daily facts of the whole months (queries/models/daily_facts.sql); in_days: in the range
facts AS (
  SELECT f.*, month_of_day(f.day) AS period, f.day >= $from_day::DATE AND f.day <= $to_day::DATE AS in_days
  FROM vehicle_day_facts($account, $zone, months_first_day($from_day), months_last_day($to_day)) AS f
),
odo AS (
  SELECT vehicle_id, sum(round(m / 1000.0, 3)) AS km, sum(x) AS excluded FROM (
    SELECT vehicle_id, sum(distance_m) AS m, sum(left_out) AS x
    FROM facts WHERE stream = 'odometer'
    GROUP BY vehicle_id, period
  ) GROUP BY vehicle_id
),
fu AS (
  SELECT vehicle_id, sum(round(l, 3)) AS l FROM (
    SELECT vehicle_id, sum(used_l) AS l
    FROM facts WHERE stream IN ('fuel_consumed', 'fuel_level')
    GROUP BY vehicle_id, period, stream
  ) GROUP BY vehicle_id
),
tl AS (SELECT vehicle_id, sum(toll_passages) AS n FROM facts WHERE stream = 'visits' AND in_days GROUP BY 1),
tr AS (SELECT vehicle_id, sum(trips) AS n FROM facts WHERE stream = 'trips' AND in_days GROUP BY 1)
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
