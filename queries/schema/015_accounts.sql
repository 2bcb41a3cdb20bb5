-- One row per account this database syncs: its zone drives every local-calendar report.
CREATE TABLE IF NOT EXISTS accounts (
  account    VARCHAR PRIMARY KEY,
  base_url   VARCHAR NOT NULL,
  timezone   VARCHAR NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
