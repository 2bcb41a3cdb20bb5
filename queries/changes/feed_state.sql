SELECT source, etag, last_modified, checked_at, changed_at, last_status, last_error
FROM api_feed_state
WHERE source = $1;
