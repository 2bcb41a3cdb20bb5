CREATE TABLE IF NOT EXISTS geofences (
  account      VARCHAR NOT NULL,
  geofence_id  VARCHAR NOT NULL,
  name         VARCHAR NOT NULL,
  description  VARCHAR,
  colour       VARCHAR,
  is_toll      BOOLEAN NOT NULL,
  synced_at    TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (account, geofence_id)
);
