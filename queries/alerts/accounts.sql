-- Every account with its zone and "complete through" (needs the report macros).
SELECT account, timezone, complete_through(account) AS complete_through
FROM accounts
ORDER BY account
