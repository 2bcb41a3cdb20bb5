-- The accounts with a recorded zone: those whose facts can be computed.
SELECT account, timezone FROM accounts WHERE timezone IS NOT NULL ORDER BY account;
