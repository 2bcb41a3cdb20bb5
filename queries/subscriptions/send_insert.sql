-- One message sent by subscription (schema 084), written after the mail server accepted it.
INSERT INTO subscription_sends (
  subscription, account, report, slot_at, sent_at, period_from, period_to, filters, formats,
  recipients, rows, complete_through, partial, reason, trigger, message_id)
VALUES (
  $subscription, $account, $report,
  CASE WHEN $slot_ms IS NULL THEN NULL ELSE to_timestamp($slot_ms / 1000.0) END,
  to_timestamp($sent_ms / 1000.0), $period_from::DATE, $period_to::DATE, $filters, $formats,
  $recipients, $rows, $complete_through::DATE, $partial, $reason, $trigger, $message_id);
