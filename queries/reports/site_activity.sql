-- Time on site per site × local day of the range (queries/models/site_visits.sql): a visit counts
-- on the local day of its enter time, its whole dwell with it (a night at the depot counts on the
-- evening it arrived). Sites: every geofence with a site visit stored. Figures of the selected
-- vehicles; a day whose visits were never synced (ledger stream `sites`) or are still open for
-- late visits is blank in every figure, never 0 (coverage not_synced / partial); a synced day
-- without a visit is 0. Dwell figures count the closed visits (open_visits: still on site).
WITH
sites AS (
  SELECT geofence_id, arg_max(geofence_name, enter_time) AS site
  FROM site_visits($account, $zone)
  GROUP BY geofence_id
),
days AS (
  SELECT c.day, c.synced, c.pulled
  FROM fleet_stream_day_coverage($account, $zone, $from_day, $to_day, $now, 'sites') AS c
),
v AS (
  SELECT s.*
  FROM site_visits($account, $zone) AS s
  LEFT JOIN vehicle_departments($account) AS veh ON veh.vehicle_id = s.vehicle_id
  WHERE s.enter_time >= local_range_start($zone, $from_day)
    AND s.enter_time < local_range_end($zone, $to_day)
    AND vehicle_selected(s.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
),
per AS (
  SELECT
    geofence_id,
    local_day AS day,
    count(*) AS visits,
    count(DISTINCT vehicle_id) AS vehicles,
    sum(dwell_s) AS total_s,
    median(dwell_s) AS median_s,
    max(dwell_s) AS longest_s,
    arg_max(registration, dwell_s) AS longest_registration,
    count(*) FILTER (WHERE open) AS open_visits,
    count(*) FILTER (WHERE outside_hours) AS outside_hours_visits
  FROM v
  GROUP BY geofence_id, local_day
)
SELECT
  sites.geofence_id,
  sites.site,
  strftime(days.day, '%Y-%m-%d') AS day,
  CASE WHEN days.synced THEN coalesce(per.visits, 0) END::INTEGER AS visits,
  CASE WHEN days.synced THEN coalesce(per.vehicles, 0) END::INTEGER AS vehicles,
  CASE WHEN days.synced THEN round(coalesce(per.total_s, 0) / 3600.0, 3) END::DOUBLE AS total_dwell_h,
  CASE WHEN days.synced THEN round(per.median_s / 60.0, 1) END::DOUBLE AS median_dwell_min,
  CASE WHEN days.synced THEN round(per.longest_s / 3600.0, 3) END::DOUBLE AS longest_stay_h,
  CASE WHEN days.synced THEN per.longest_registration END AS longest_stay_registration,
  CASE WHEN days.synced THEN coalesce(per.open_visits, 0) END::INTEGER AS open_visits,
  CASE WHEN days.synced THEN coalesce(per.outside_hours_visits, 0) END::INTEGER AS outside_hours_visits,
  CASE WHEN days.synced THEN 'complete' WHEN days.pulled THEN 'partial' ELSE 'not_synced' END AS coverage,
  $zone::VARCHAR AS zone
FROM sites
CROSS JOIN days
LEFT JOIN per ON per.geofence_id = sites.geofence_id AND per.day = days.day
ORDER BY sites.site, sites.geofence_id, days.day;
