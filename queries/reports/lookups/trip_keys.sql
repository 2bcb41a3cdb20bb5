-- The keys of the trips report's lookups on this connection: every known vehicle ('v' || id) and
-- driver ('d' || id) of the account as one ENUM, so a trip finds its vehicle's and driver's row by
-- the enum's code (a dictionary lookup) instead of a hash join. A hash join does not keep the
-- scan's order; a scalar lookup does, so an export of trips stored in start order streams
-- without a sort (issue 29). '' keeps the type non-empty (no key is '').
CREATE OR REPLACE TEMP TYPE trip_lookup_key AS ENUM (
  SELECT DISTINCT k FROM (
    SELECT '' AS k
    UNION ALL
    SELECT 'v' || vehicle_id FROM vehicle_departments($account)
    UNION ALL
    SELECT 'd' || driver_id FROM driver_names($account)
  )
  WHERE k IS NOT NULL
  ORDER BY k
);
