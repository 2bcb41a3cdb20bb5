-- The coverage of an export's range by per-vehicle ledger streams ($streams), for its XLSX About
-- sheet (src/reports/xlsx.ts, which joins the ledger streams of each stream the report reads,
-- src/reports/needs.ts): per stream and local day of the range that has ended, synced (settled)
-- and pulled, as the coverage model says (queries/models/coverage.sql), on a vehicle of the
-- vehicle / department selection (as fleet_day_coverage counts the odometer for kpis). ever: the
-- account's ledger holds a window of the stream at all (none: never synced, or no vehicle has
-- it, as the EV energy of a fleet without electric vehicles).
-- The stored day coverage's rows of the selected vehicles only (day_coverage, kept by the coverage
-- model, ledger_day_coverage: a vehicle-day without a row was not pulled), not a cell per vehicle,
-- day and stream: the About sheet of a report reading several streams stays cheap at 5,000
-- vehicles.
WITH sel AS (
  SELECT d.vehicle_id::VARCHAR AS scope
  FROM vehicle_departments($account) AS d
  WHERE vehicle_selected(d.vehicle_id, d.department, $vehicle::BIGINT, $department::VARCHAR)
),
v AS (
  SELECT c.stream, c.day, bool_or(c.synced) AS synced, bool_or(c.pulled) AS pulled
  FROM day_coverage AS c
  JOIN sel ON sel.scope = c.scope
  WHERE c.account = $account AND list_contains($streams::VARCHAR[], c.stream)
    AND c.day >= $from_day::DATE AND c.day <= $to_day::DATE
  GROUP BY c.stream, c.day
),
s AS (
  SELECT stream, EXISTS (SELECT 1 FROM ledger AS l WHERE l.account = $account AND l.stream = x.stream) AS ever
  FROM (SELECT unnest($streams::VARCHAR[]) AS stream) AS x
)
SELECT
  s.stream,
  strftime(days.day, '%Y-%m-%d') AS day,
  coalesce(v.synced, false) AS synced,
  coalesce(v.pulled, false) AS pulled,
  s.ever
FROM ended_local_days($zone, $from_day, $to_day, $now) AS days
CROSS JOIN s
LEFT JOIN v ON v.stream = s.stream AND v.day = days.day
ORDER BY s.stream, days.day;
