-- The trips' after-hours in the daily facts (issue 29): per vehicle and local day, the engine-on
-- seconds of its trips outside the account's working hours (queries/models/working_hours.sql
-- trip_after_hours), kept on the 'trips' rows, so the utilisation reports add up days instead of
-- spreading every trip of the range over its days. A day a trip only runs into (one that started
-- the day before) has a 'trips' row without trips. Computed again for an account when its working
-- hours change (src/sync/run-log.ts), and for every account by the upgrade that adds it
-- (src/store/db.ts).
--   after_hours_s  engine-on seconds outside the working hours that day (all of a non-working day)
ALTER TABLE daily_facts ADD COLUMN after_hours_s DOUBLE;
