-- Toll charges in the daily facts (issue 29): the toll passages of a vehicle's local day with
-- their charges (queries/models/prices.sql toll_passage_charges: the tariff of the geofence and the
-- vehicle's class on that day), so the kpis tiles and the monthly costs add up days instead of
-- pricing every passage of the range. Kept on the 'visits' rows beside toll_passages, computed
-- again for an account when its prices file is stored (src/prices/store.ts) or its toll geofences
-- change, and for every account by the upgrade that adds them (src/store/db.ts).
--   toll_no_tariff        passages without a tariff that day (no prices, no tariff: never free)
--   toll_charged          the sum of the charges of the passages with a tariff (NULL: none has one)
--   toll_charged_rounded  the same, each charge rounded to the cent first (as toll_charges.sql
--                         shows each passage, so the kpis tile ties to that report to the cent)
ALTER TABLE daily_facts ADD COLUMN toll_no_tariff INTEGER;
ALTER TABLE daily_facts ADD COLUMN toll_charged DOUBLE;
ALTER TABLE daily_facts ADD COLUMN toll_charged_rounded DOUBLE;
