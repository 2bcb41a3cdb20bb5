-- The toll passage, once: a geofence visit is a toll passage when its geofence is a toll
-- geofence — the geofence's is_toll as last synced (GET /geofences), else the visit's own
-- is_toll, else not a toll. Its geofence name is the geofence's, else the visit's.
--   toll_passages(acct)  the account's toll passages: the geofence_visits columns, geofence_name
--                        resolved as above
CREATE OR REPLACE TEMP MACRO toll_passages(acct) AS TABLE
  SELECT gv.* REPLACE (coalesce(g.name, gv.geofence_name) AS geofence_name)
  FROM geofence_visits AS gv
  LEFT JOIN geofences AS g ON g.account = gv.account AND g.geofence_id = gv.geofence_id
  WHERE gv.account = acct AND coalesce(g.is_toll, gv.is_toll, false);
