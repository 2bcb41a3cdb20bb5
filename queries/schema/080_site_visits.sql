-- site_geofence_visits: the visits of the geofences that are not toll geofences (depots, customer sites, yards): the time
-- on site. The same key and columns as geofence_visits, which keeps the toll visits alone (so the
-- toll passages are counted exactly as before). is_toll is false, or NULL when neither the visit
-- nor the geofence said (kept, shown as a site). exit_time NULL: a visit still open.
CREATE TABLE IF NOT EXISTS site_geofence_visits (
  account       VARCHAR NOT NULL,
  vehicle_id    BIGINT NOT NULL,
  geofence_id   VARCHAR NOT NULL,
  enter_time    TIMESTAMPTZ NOT NULL,
  exit_time     TIMESTAMPTZ,
  registration  VARCHAR NOT NULL,
  geofence_name VARCHAR,
  is_toll       BOOLEAN,
  duration_s    DOUBLE,
  extra_fields  VARCHAR,
  PRIMARY KEY (account, vehicle_id, geofence_id, enter_time)
);
