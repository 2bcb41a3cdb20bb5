-- The toll passage, once: a geofence visit is a toll passage when its geofence is a toll
-- geofence — the geofence's is_toll as last synced (GET /geofences), else the visit's own
-- is_toll, else not a toll. Its geofence name is the geofence's, else the visit's.
--   geofence_visits_classified(acct)  every visit of the account — geofence_visits (the toll
--                        visits as synced) and site_geofence_visits (the others) — with
--                        geofence_name resolved as above and toll_passage the rule's verdict; a
--                        visit that is not a toll passage is a site visit (models/site_visits.sql)
--   toll_passages(acct)  the account's toll passages: the geofence_visits columns, geofence_name
--                        resolved as above
CREATE OR REPLACE TEMP MACRO geofence_visits_classified(acct) AS TABLE
  SELECT
    gv.* REPLACE (coalesce(g.name, gv.geofence_name) AS geofence_name),
    coalesce(g.is_toll, gv.is_toll, false) AS toll_passage
  FROM (
    SELECT * FROM geofence_visits WHERE account = acct
    UNION ALL BY NAME
    SELECT * FROM site_geofence_visits WHERE account = acct
  ) AS gv
  LEFT JOIN geofences AS g ON g.account = gv.account AND g.geofence_id = gv.geofence_id;

CREATE OR REPLACE TEMP MACRO toll_passages(acct) AS TABLE
  SELECT * EXCLUDE (toll_passage) FROM geofence_visits_classified(acct) WHERE toll_passage;

-- toll_geofences_signature(acct): which of the account's geofences are toll geofences, as one
-- value (NULL without geofences): a change means the stored toll-passage facts must be computed
-- again (src/store/facts.ts).
CREATE OR REPLACE TEMP MACRO toll_geofences_signature(acct) AS (
  SELECT md5(string_agg(g.geofence_id::VARCHAR || ':' || g.is_toll::VARCHAR, ',' ORDER BY g.geofence_id))
  FROM geofences AS g WHERE g.account = acct
);
