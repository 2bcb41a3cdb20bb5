-- iso_local(ts, zone): an instant as ISO 8601 local time with its offset in the zone,
-- e.g. 2026-04-05T02:30:00+11:00. NULL stays NULL (blank in exports).
CREATE OR REPLACE TEMP MACRO iso_local(ts, zone) AS
  CASE WHEN ts IS NULL THEN NULL ELSE printf(
    '%s%s%02d:%02d',
    strftime(timezone(zone, ts), '%Y-%m-%dT%H:%M:%S'),
    CASE WHEN epoch(timezone(zone, ts)) < epoch(ts) THEN '-' ELSE '+' END,
    abs(epoch(timezone(zone, ts)) - epoch(ts))::BIGINT // 3600,
    abs(epoch(timezone(zone, ts)) - epoch(ts))::BIGINT % 3600 // 60
  ) END;
