-- The working hours of an account (FLEETSYNC_WORKING_HOURS, or `working_hours` in the accounts
-- file), recorded by each sync: ISO weekdays (1 = Monday) and local start/end minutes. The
-- utilisation reports read it; an account without a row has Monday–Friday 07:00–18:00.
CREATE TABLE IF NOT EXISTS account_working_hours (
  account    VARCHAR PRIMARY KEY,
  spec       VARCHAR NOT NULL,
  weekdays   INTEGER[] NOT NULL,
  start_min  INTEGER NOT NULL,
  end_min    INTEGER NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
