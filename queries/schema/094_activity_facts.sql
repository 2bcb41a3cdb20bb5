-- Vehicle activity in the daily facts (issue 29): the vehicle's row of GET /vehicles/activity for
-- its local day (vehicle_activity), kept as 'activity' rows by the activity stream's writer, so the
-- utilisation reports read one table of vehicle-days. Computed for every account by the upgrade
-- that adds them (src/store/db.ts).
--   driving_s, idle_s                       engine-on seconds that day as the API gave them
--   first_ignition_on, last_ignition_off    the day's first ignition and last switch-off
ALTER TABLE daily_facts ADD COLUMN driving_s DOUBLE;
ALTER TABLE daily_facts ADD COLUMN idle_s DOUBLE;
ALTER TABLE daily_facts ADD COLUMN first_ignition_on TIMESTAMPTZ;
ALTER TABLE daily_facts ADD COLUMN last_ignition_off TIMESTAMPTZ;
