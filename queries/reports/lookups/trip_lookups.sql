-- The trips report's lookups on this connection (after trip_keys): per key code (list position =
-- enum code + 1) the vehicle's registration and department and the driver's name, and the zone's
-- offset per UTC quarter hour (zone_offsets) over the range and two days beyond it (a trip may end
-- after the range). trip_lookups_ready says whether they were made for the query's account, zone
-- and range; the query fails rather than read another account's names.
SET VARIABLE trip_lookups = (
  WITH o AS (
    SELECT q, off
    FROM zone_offsets($zone, local_range_start($zone, $from_day), local_range_end($zone, $to_day) + INTERVAL 2 DAY)
  ),
  k AS (
    SELECT e.i, v.registration, v.department, d.driver_name
    FROM (
      SELECT unnest(r) AS k, generate_subscripts(r, 1) AS i
      FROM (SELECT enum_range(NULL::trip_lookup_key) AS r)
    ) AS e
    LEFT JOIN vehicle_departments($account) AS v ON 'v' || v.vehicle_id = e.k
    LEFT JOIN driver_names($account) AS d ON 'd' || d.driver_id = e.k
  )
  SELECT {
    account: $account::VARCHAR,
    zone: $zone::VARCHAR,
    t0: local_range_start($zone, $from_day),
    t1: local_range_end($zone, $to_day),
    q0: (SELECT min(q) FROM o),
    q1: (SELECT max(q) FROM o),
    off: (SELECT list(off ORDER BY q) FROM o),
    registration: list(k.registration ORDER BY k.i),
    department: list(k.department ORDER BY k.i),
    driver_name: list(k.driver_name ORDER BY k.i)
  }
  FROM k
);
