-- GET /drivers: every fleet driver (a snapshot, upserted; a driver the API stops listing is kept,
-- so old trips keep their driver's name). groups: JSON array text of group names.
CREATE TABLE IF NOT EXISTS drivers (
  account    VARCHAR NOT NULL,
  driver_id  VARCHAR NOT NULL,
  first_name VARCHAR,
  last_name  VARCHAR,
  status     VARCHAR,
  groups     VARCHAR NOT NULL,
  synced_at  TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (account, driver_id)
);
