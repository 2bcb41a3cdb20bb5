INSERT INTO api_feed_state (source, etag, last_modified, checked_at, changed_at, last_status, last_error)
VALUES ($1, $2, $3, CAST($4 AS TIMESTAMPTZ), CAST($5 AS TIMESTAMPTZ), $6, $7)
ON CONFLICT (source) DO UPDATE SET
  etag = excluded.etag,
  last_modified = excluded.last_modified,
  checked_at = excluded.checked_at,
  changed_at = excluded.changed_at,
  last_status = excluded.last_status,
  last_error = excluded.last_error;
