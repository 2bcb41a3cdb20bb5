-- The coverage of an export's range by one ledger stream ($stream_name), for its XLSX About sheet
-- (src/reports/xlsx.ts, which joins the ledger streams of each stream the report reads,
-- src/reports/needs.ts): every local day of the range that has ended, synced (settled) and pulled
-- as the coverage model says (queries/models/coverage.sql): for a stream synced per vehicle, on a
-- vehicle of the vehicle / department selection (as fleet_day_coverage counts the odometer for
-- kpis); for a stream synced fleet-wide (scope `*`), for the fleet. ever: the account's ledger
-- holds a window of the stream at all (none: never synced, or no vehicle has it, as the EV energy
-- of a fleet without electric vehicles).
WITH v AS (
  SELECT c.day, bool_or(c.synced) AS synced, bool_or(c.pulled) AS pulled
  FROM vehicle_streams_day_coverage($account, $zone, $from_day, $to_day, $now, [$stream_name::VARCHAR]) AS c
  JOIN vehicle_departments($account) AS d ON d.vehicle_id = c.vehicle_id
  WHERE vehicle_selected(c.vehicle_id, d.department, $vehicle::BIGINT, $department::VARCHAR)
  GROUP BY c.day
)
SELECT
  strftime(f.day, '%Y-%m-%d') AS day,
  f.synced OR coalesce(v.synced, false) AS synced,
  f.pulled OR coalesce(v.pulled, false) AS pulled,
  EXISTS (SELECT 1 FROM ledger WHERE account = $account AND stream = $stream_name::VARCHAR) AS ever
FROM fleet_stream_day_coverage($account, $zone, $from_day, $to_day, $now, $stream_name::VARCHAR) AS f
LEFT JOIN v ON v.day = f.day
ORDER BY f.day;
