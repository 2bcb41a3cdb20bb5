-- The opening alert reached a channel: $1 account, $2 incident, $3 opened at, $4 when.
UPDATE alert_incidents SET notified_at = $4 WHERE account = $1 AND incident = $2 AND opened_at = $3
