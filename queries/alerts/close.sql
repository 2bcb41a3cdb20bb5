-- An incident clears: $1 account, $2 incident, $3 opened at, $4 closed at, $5 the "recovered" text.
UPDATE alert_incidents SET closed_at = $4, close_summary = $5
WHERE account = $1 AND incident = $2 AND opened_at = $3
