-- The logbook's count and its km / counted_km totals in one pass over the model's trips
-- (queries/models/logbook.sql logbook_trips: the columns the totals read only; no names, no
-- formatting, no sort), for the same selection of vehicles (src/reports/run.ts LIST_TOTALS;
-- test/reports/list-pages.int.test.ts). One row, no day: the page is read as it is.
-- rows: the trips; km, counted_km: their sums as logbook.sql rounds each; *_blank: those without.
SELECT
  NULL::VARCHAR AS day,
  count(*) AS rows,
  sum(round(lt.reading_km, 3))::DOUBLE AS km,
  count(*) FILTER (WHERE lt.reading_km IS NULL) AS km_blank,
  sum(round(lt.counted_km, 3))::DOUBLE AS counted_km,
  count(*) FILTER (WHERE lt.counted_km IS NULL) AS counted_km_blank
FROM logbook_trips($account, $zone, $from_day, $to_day) AS lt
LEFT JOIN vehicle_departments($account) AS veh ON veh.vehicle_id = lt.vehicle_id
WHERE vehicle_selected(lt.vehicle_id, veh.department, $vehicle::BIGINT, $department::VARCHAR);
