-- The endpoints every account may not read or does not have (src/sync/access.ts).
SELECT account, endpoint, state, since, last_probed, last_status, streams
FROM endpoint_access
WHERE state <> 'ok'
ORDER BY account, endpoint
