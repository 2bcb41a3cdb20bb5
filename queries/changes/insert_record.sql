INSERT INTO api_change_records
  (source, version, seq, release_date, kind, section, area, contract, endpoints, breaking, text,
   affects_sync, sync_endpoints, first_seen_at)
VALUES ($1, $2, $3, CAST($4 AS DATE), $5, $6, $7, CAST($8 AS JSON), CAST($9 AS JSON), $10, $11, $12,
        CAST($13 AS JSON), CAST($14 AS TIMESTAMPTZ))
ON CONFLICT (source, version, seq) DO NOTHING;
