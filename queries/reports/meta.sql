-- Sidecar metadata of an export: "complete through" as the instant (exclusive end) and as the
-- last complete local day, inclusive (not a report; reportMeta caches it by the fingerprint of
-- meta_key.sql).
SELECT
  iso_local(complete_through($account), $zone) AS complete_through,
  strftime(complete_through_day($account, $zone), '%Y-%m-%d') AS complete_through_day;
