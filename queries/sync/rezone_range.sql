-- What a re-zone pulls again: the span of the account's windows ($1 account), bookings left out
-- (their windows reach a month ahead of the telemetry).
SELECT min(window_start) AS first_start, max(window_end) AS last_end
FROM ledger WHERE account = $1 AND stream <> 'bookings'
