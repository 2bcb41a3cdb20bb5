-- Ledger windows per account, stream and status (the /metrics gauge).
SELECT account, stream, status, count(*)::BIGINT AS n
FROM ledger
GROUP BY account, stream, status
ORDER BY account, stream, status
