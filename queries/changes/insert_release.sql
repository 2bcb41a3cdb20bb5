INSERT INTO api_releases (source, version, release_date, records, first_seen_at)
VALUES ($1, $2, CAST($3 AS DATE), $4, CAST($5 AS TIMESTAMPTZ))
ON CONFLICT (source, version) DO NOTHING;
