-- An incident opens: $1 account, $2 incident, $3 opened at, $4 summary.
INSERT INTO alert_incidents (account, incident, opened_at, summary) VALUES ($1, $2, $3, $4)
