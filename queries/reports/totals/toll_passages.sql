-- The rows of toll_charges and tolls per local day from the daily facts
-- (queries/models/daily_facts.sql: each day's toll passages, toll_passages.sql's rows by the local
-- day they enter, those without a tariff, and their charges each rounded to the cent, as
-- toll_charges.sql shows each passage), for the same selection of vehicles: what the reports' rows
-- add up to day by day (src/reports/registry.ts listTotals; test/reports/list-pages.int.test.ts).
-- rows: the day's rows; charge: their charges' sum (NULL: none has one); charge_blank: those without.
SELECT
  strftime(f.day, '%Y-%m-%d') AS day,
  sum(f.toll_passages)::BIGINT AS rows,
  sum(f.toll_charged_rounded)::DOUBLE AS charge,
  sum(f.toll_no_tariff)::BIGINT AS charge_blank
FROM vehicle_day_facts($account, $zone, $from_day, $to_day) AS f
LEFT JOIN vehicle_departments($account) AS veh ON veh.vehicle_id = f.vehicle_id
WHERE f.stream = 'visits'
  AND vehicle_selected(f.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR)
GROUP BY f.day
HAVING sum(f.toll_passages) > 0
ORDER BY f.day;
