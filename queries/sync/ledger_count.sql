-- Ledger rows of an account (0 before its first sync): $1 account.
SELECT count(*) AS n FROM ledger WHERE account = $1
