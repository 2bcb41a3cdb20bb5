-- Every account's endpoints and their state (src/sync/access.ts): the alerts judge the refused ones.
SELECT account, endpoint, state, since, last_status, streams
FROM endpoint_access
ORDER BY account, endpoint
