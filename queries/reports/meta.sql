-- Sidecar metadata of an export: "complete through" (not a report; reportMeta caches it by the
-- fingerprint of meta_key.sql).
SELECT iso_local(complete_through($account), $zone) AS complete_through;
