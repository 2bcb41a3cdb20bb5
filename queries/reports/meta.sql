-- Sidecar metadata of an export: the latest run and "complete through" (not a report).
SELECT
  (SELECT run_id FROM runs WHERE account = $account ORDER BY started_at DESC LIMIT 1) AS run_id,
  iso_local(complete_through($account), $zone) AS complete_through;
