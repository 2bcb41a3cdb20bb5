-- The endpoints recorded for an account ($1), with their state.
SELECT endpoint, state, since, last_probed, last_status, message, streams, ledger_streams
FROM endpoint_access
WHERE account = $1
ORDER BY endpoint
