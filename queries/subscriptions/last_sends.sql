-- The last message of each subscription (and of the month-end pack, as 'month-end-pack'): what
-- `send-report --list` shows beside each entry.
SELECT subscription, account, report, epoch_ms(sent_at) AS sent_ms, period_from::VARCHAR AS period_from,
       period_to::VARCHAR AS period_to, partial, reason, trigger, recipients
FROM (
  SELECT subscription, account, report, sent_at, period_from, period_to, partial, reason, trigger,
         recipients,
         row_number() OVER (PARTITION BY subscription ORDER BY sent_at DESC) AS n
  FROM subscription_sends
  UNION ALL
  SELECT 'month-end-pack', account, 'mileage, fuel, tolls', sent_at, (month || '-01')::DATE,
         last_day((month || '-01')::DATE), partial, reason, trigger, recipients,
         row_number() OVER (ORDER BY sent_at DESC) AS n
  FROM report_packs
)
WHERE n = 1
ORDER BY subscription;
