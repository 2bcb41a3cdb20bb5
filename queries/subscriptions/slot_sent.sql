-- Whether the schedule already sent this subscription's slot (any account: the slot is the entry's).
SELECT count(*)::INTEGER AS n
FROM subscription_sends
WHERE subscription = $subscription AND slot_at = to_timestamp($slot_ms / 1000.0);
