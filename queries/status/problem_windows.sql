-- Flagged and failed windows, with the vehicle's registration where the scope is a vehicle ($1 limit).
SELECT l.account, l.stream, l.scope, v.registration, l.window_start, l.window_end, l.status, l.reason, l.fetched_at
FROM ledger l
LEFT JOIN vehicles v ON v.account = l.account AND CAST(v.vehicle_id AS VARCHAR) = l.scope
WHERE l.status IN ('flagged', 'failed')
ORDER BY l.status DESC, l.window_start DESC
LIMIT $1
