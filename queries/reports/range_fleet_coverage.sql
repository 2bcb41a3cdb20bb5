-- The coverage of an export's range by a ledger stream synced fleet-wide (scope `*`:
-- $stream_name), for its XLSX About sheet (src/reports/xlsx.ts): every local day of the range
-- that has ended, synced (settled) and pulled (queries/models/coverage.sql); ever as in
-- range_vehicle_coverage.sql.
SELECT
  $stream_name::VARCHAR AS stream,
  strftime(f.day, '%Y-%m-%d') AS day,
  f.synced,
  f.pulled,
  EXISTS (SELECT 1 FROM ledger AS l WHERE l.account = $account AND l.stream = $stream_name::VARCHAR) AS ever
FROM fleet_stream_day_coverage($account, $zone, $from_day, $to_day, $now, $stream_name::VARCHAR) AS f
ORDER BY f.day;
