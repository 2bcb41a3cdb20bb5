-- Forgets a zone recorded by a first sync that the API's own offsets then contradicted ($1 account),
-- so the next run (with the right FLEET_TIMEZONE) records its zone instead of being refused.
DELETE FROM accounts WHERE account = $1
