-- Reports sent by subscription (src/reports/subscriptions.ts, docs/subscriptions.md): one row per
-- message the mail server accepted. The schedule sends a subscription's slot (the cron instant it
-- fired for) once: a row with that subscription and slot_at exists → not sent again, also after a
-- restart. `fleetsync send-report` adds rows with trigger 'cli' and no slot.
CREATE TABLE IF NOT EXISTS subscription_sends (
  subscription     VARCHAR NOT NULL,     -- the entry's name; '(ad hoc)' for send-report --report
  account          VARCHAR NOT NULL,
  report           VARCHAR NOT NULL,
  slot_at          TIMESTAMPTZ,          -- the scheduled instant sent for; NULL when sent on request
  sent_at          TIMESTAMPTZ NOT NULL,
  period_from      DATE NOT NULL,        -- local days, both inclusive
  period_to        DATE NOT NULL,
  filters          VARCHAR NOT NULL,     -- vehicle / department, in words ('' = the whole fleet)
  formats          VARCHAR NOT NULL,     -- csv | xlsx | csv, xlsx
  recipients       VARCHAR NOT NULL,
  rows             BIGINT NOT NULL,
  complete_through DATE,                 -- the last complete local day when sent (NULL: none)
  partial          BOOLEAN NOT NULL,     -- the period was not complete when sent
  reason           VARCHAR,              -- why partial; NULL when complete
  trigger          VARCHAR NOT NULL,     -- schedule | cli
  message_id       VARCHAR NOT NULL
);
