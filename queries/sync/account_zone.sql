-- The zone recorded with the account on its first sync ($1 account); no row before it.
SELECT timezone FROM accounts WHERE account = $1
