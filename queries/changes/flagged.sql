-- Breaking or deprecation records that name an endpoint the sync uses, newest first.
SELECT source, version, CAST(release_date AS VARCHAR) AS release_date, kind, section, area,
       CAST(endpoints AS VARCHAR) AS endpoints, CAST(sync_endpoints AS VARCHAR) AS sync_endpoints,
       breaking, text, first_seen_at, acknowledged_at
FROM api_change_records
WHERE affects_sync
  AND ($1::BOOLEAN OR acknowledged_at IS NULL)
ORDER BY release_date DESC, version DESC, seq;
