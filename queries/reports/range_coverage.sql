-- The coverage of an export's range, for its XLSX About sheet (src/reports/xlsx.ts): per local
-- month the range touches, the days of the range in it that have ended (range_days), those a sync
-- covered and that are settled (synced_days) and those pulled but still open for late data
-- (open_days), by fleet_day_coverage (queries/models/coverage.sql; the vehicle / department
-- selection's odometer, as the kpis count days).
SELECT
  month_of_day(day) AS period,
  count(*)::INTEGER AS range_days,
  count(*) FILTER (WHERE synced)::INTEGER AS synced_days,
  count(*) FILTER (WHERE pulled AND NOT synced)::INTEGER AS open_days
FROM fleet_day_coverage($account, $zone, $from_day, $to_day, $now, $vehicle::BIGINT, $department::VARCHAR)
GROUP BY period
ORDER BY period;
