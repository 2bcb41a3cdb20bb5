-- The keys of the trips report's lookups on this connection: every known vehicle ('v' || id) and
-- driver (its id as it is, so no text is made per trip; a driver id that reads like a vehicle's
-- key shares its position, where each list holds its own kind's value) of the account as one
-- ENUM, so a trip finds its vehicle's and driver's row by the enum's code (a dictionary lookup)
-- instead of a hash join. A hash join does not keep the
-- scan's order; a scalar lookup does, so an export of trips stored in start order streams
-- without a sort (issue 29). '' keeps the type non-empty (a driver
-- whose id is '' finds its name there).
CREATE OR REPLACE TEMP TYPE trip_lookup_key AS ENUM (
  SELECT DISTINCT k FROM (
    SELECT '' AS k
    UNION ALL
    SELECT 'v' || vehicle_id FROM vehicle_departments($account)
    UNION ALL
    SELECT driver_id FROM driver_names($account)
  )
  WHERE k IS NOT NULL
  ORDER BY k
);
