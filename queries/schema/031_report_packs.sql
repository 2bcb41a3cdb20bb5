-- Month-end packs sent by e-mail (src/reports/pack.ts): one row per message. The schedule sends a
-- month once (any row for the account and month); `fleetsync send-report` adds another row.
CREATE TABLE IF NOT EXISTS report_packs (
  account    VARCHAR NOT NULL,
  month      VARCHAR NOT NULL,     -- YYYY-MM, local to the account's zone
  sent_at    TIMESTAMPTZ NOT NULL,
  message_id VARCHAR NOT NULL,     -- as the mail server accepted it
  partial    BOOLEAN NOT NULL,     -- sent before the month was complete (at the deadline)
  reason     VARCHAR,              -- why partial; NULL when complete
  trigger    VARCHAR NOT NULL,     -- schedule | cli
  recipients VARCHAR NOT NULL,
  PRIMARY KEY (account, month, sent_at)
);
