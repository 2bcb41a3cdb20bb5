-- The latest sync runs of the account (newest first), with their counters.
SELECT
  r.run_id,
  r.trigger,
  r.outcome,
  iso_local(r.started_at, $zone) AS started_at,
  iso_local(r.ended_at, $zone) AS ended_at,
  round(epoch(r.ended_at) - epoch(r.started_at), 3)::DOUBLE AS duration_s,
  strftime(r.range_from, '%Y-%m-%d') AS range_from,
  strftime(r.range_to, '%Y-%m-%d') AS range_to,
  r.streams,
  r.requests,
  r.retries,
  -- no 429 in a finished run is a known zero, not an empty map
  CASE WHEN len(json_keys(r.http_429)) = 0 THEN '0' ELSE r.http_429::VARCHAR END AS http_429,
  r.windows_by_stream::VARCHAR AS windows_by_stream,
  r.errors::VARCHAR AS errors,
  -- the streams left out: an endpoint not permitted for these credentials or not available
  r.skipped::VARCHAR AS skipped,
  r.notes,
  $zone::VARCHAR AS zone
FROM runs AS r
WHERE r.account = $account
ORDER BY r.started_at DESC
LIMIT $limit::INTEGER;
