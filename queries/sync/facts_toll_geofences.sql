-- Which of an account's geofences are toll geofences, as one value (queries/models/toll_passages.sql):
-- the geofences snapshot computes the toll-passage facts again when it changes (src/store/facts.ts).
SELECT toll_geofences_signature($1) AS sig;
