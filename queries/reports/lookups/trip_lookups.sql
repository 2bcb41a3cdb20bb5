-- The trips report's lookups on this connection (after trip_keys): per key code (list position =
-- enum code + 1) the vehicle's registration and department and the driver's name, and the zone's
-- offset per UTC quarter hour (zone_offsets; and its text, as tz_offset_text writes it) over the
-- range and two days beyond it (a trip may end after the range). When the account's vehicle ids
-- lie close together (vdense: their span under 100,000 or 16 per vehicle) the vehicles' lists are
-- by id instead (position = vehicle_id - vmin + 1), which a trip finds by a subtraction rather
-- than an ENUM cast of a text key (issue 29: ~0.25-0.5 s of CPU per 1 M trips). trip_lookups_ready says whether they were made for the query's account, zone
-- and range; the query fails rather than read another account's names.
SET VARIABLE trip_lookups = (
  WITH o AS (
    SELECT q, off
    FROM zone_offsets($zone, local_range_start($zone, $from_day), local_range_end($zone, $to_day) + INTERVAL 2 DAY)
  ),
  vr AS (
    SELECT min(vehicle_id) AS vmin, max(vehicle_id) AS vmax,
      max(vehicle_id) - min(vehicle_id) < greatest(100000, 16 * count(*)) AS vdense
    FROM vehicle_departments($account)
  ),
  vd AS (
    SELECT g.id - vr.vmin + 1 AS i, v.registration, v.department
    FROM vr, range(vr.vmin, CASE WHEN vr.vdense THEN vr.vmax + 1 ELSE vr.vmin END) AS g(id)
    LEFT JOIN vehicle_departments($account) AS v ON v.vehicle_id = g.id
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
    off_text: (SELECT list(tz_offset_text(off) ORDER BY q) FROM o),
    vdense: coalesce((SELECT vdense FROM vr), false),
    vmin: (SELECT vmin FROM vr),
    vmax: (SELECT vmax FROM vr),
    registration: CASE
      WHEN (SELECT vdense FROM vr) THEN (SELECT list(registration ORDER BY i) FROM vd)
      ELSE list(k.registration ORDER BY k.i)
    END,
    department: CASE
      WHEN (SELECT vdense FROM vr) THEN (SELECT list(department ORDER BY i) FROM vd)
      ELSE list(k.department ORDER BY k.i)
    END,
    driver_name: list(k.driver_name ORDER BY k.i)
  }
  FROM k
);
