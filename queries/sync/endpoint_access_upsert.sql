-- One endpoint's state after a run that asked it: $1 account, $2 endpoint, $3 state, $4 since,
-- $5 last probed, $6 last HTTP status, $7 message, $8 streams, $9 ledger streams.
INSERT INTO endpoint_access
  (account, endpoint, state, since, last_probed, last_status, message, streams, ledger_streams)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (account, endpoint) DO UPDATE SET
  state = excluded.state, since = excluded.since, last_probed = excluded.last_probed,
  last_status = excluded.last_status, message = excluded.message, streams = excluded.streams,
  ledger_streams = excluded.ledger_streams
