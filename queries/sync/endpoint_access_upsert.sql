-- The endpoints' states after a run that asked them, all in one statement (one upsert each cost
-- ~4 ms of CPU, ~15 a run): $1 account, $5 last probed, and lists of one length, one item per
-- endpoint (each endpoint once): $2 endpoint, $3 state, $4 since, $6 last HTTP status, $7 message,
-- $8 streams, $9 ledger streams.
INSERT INTO endpoint_access
  (account, endpoint, state, since, last_probed, last_status, message, streams, ledger_streams)
SELECT $1, e, s, si::TIMESTAMPTZ, $5::TIMESTAMPTZ, st, m, str, ls
FROM (
  SELECT unnest($2::VARCHAR[]) AS e, unnest($3::VARCHAR[]) AS s, unnest($4::VARCHAR[]) AS si,
    unnest($6::INTEGER[]) AS st, unnest($7::VARCHAR[]) AS m, unnest($8::VARCHAR[]) AS str,
    unnest($9::VARCHAR[]) AS ls
)
ON CONFLICT (account, endpoint) DO UPDATE SET
  state = excluded.state, since = excluded.since, last_probed = excluded.last_probed,
  last_status = excluded.last_status, message = excluded.message, streams = excluded.streams,
  ledger_streams = excluded.ledger_streams
