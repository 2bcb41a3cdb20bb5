-- The day's coverage (issue 29), kept beside the daily facts: per account, ledger stream, scope
-- (a vehicle id, or `*` for a fleet-wide stream) and local day that any done, flagged or
-- incomplete ledger window of it overlaps, whether those windows cover the whole day (pulled) and
-- whether the settled ones do (synced), computed by the coverage model
-- (queries/models/coverage.sql, ledger_day_coverage) in the transaction that writes the ledger
-- rows. A day without a row was not pulled (neither synced nor pulled; unknown, never zero).
CREATE TABLE IF NOT EXISTS day_coverage (
  account  VARCHAR NOT NULL,
  stream   VARCHAR NOT NULL,
  scope    VARCHAR NOT NULL,
  day      DATE NOT NULL,
  synced   BOOLEAN NOT NULL,
  pulled   BOOLEAN NOT NULL
);
