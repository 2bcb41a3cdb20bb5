-- Where an account's coverage begins: the earliest ledger window ($1 account).
SELECT min(window_start) AS first_start FROM ledger WHERE account = $1
