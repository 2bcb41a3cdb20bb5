-- What the API sends beyond the fields this version maps is kept, not thrown away (issue 23):
-- `extra_fields` holds a record's unmapped wire keys as compact JSON (NULL: none, or a row stored
-- before this column existed), so a later version can use them without pulling history again.
-- A `*_known` flag is FALSE for an enum value this version does not know (stored exactly as sent);
-- NULL on rows stored before it existed, which only ever held known values.
ALTER TABLE trips ADD COLUMN IF NOT EXISTS trip_type VARCHAR;               -- None / Business / Private, as sent
ALTER TABLE trips ADD COLUMN IF NOT EXISTS trip_type_known BOOLEAN;
ALTER TABLE trips ADD COLUMN IF NOT EXISTS is_private BOOLEAN;
ALTER TABLE trips ADD COLUMN IF NOT EXISTS trip_title VARCHAR;
ALTER TABLE trips ADD COLUMN IF NOT EXISTS trip_extra_notes VARCHAR;
ALTER TABLE trips ADD COLUMN IF NOT EXISTS harsh_braking_events INTEGER;
ALTER TABLE trips ADD COLUMN IF NOT EXISTS harsh_acceleration_events INTEGER;
ALTER TABLE trips ADD COLUMN IF NOT EXISTS harsh_cornering_events INTEGER;
ALTER TABLE trips ADD COLUMN IF NOT EXISTS road_speeding_events INTEGER;
ALTER TABLE trips ADD COLUMN IF NOT EXISTS road_speeding_duration_seconds DOUBLE;
ALTER TABLE trips ADD COLUMN IF NOT EXISTS thresholds_speeding_events INTEGER;
ALTER TABLE trips ADD COLUMN IF NOT EXISTS thresholds_speeding_duration_seconds DOUBLE;
ALTER TABLE trips ADD COLUMN IF NOT EXISTS max_speed DOUBLE;                 -- as sent (unit undocumented)
ALTER TABLE trips ADD COLUMN IF NOT EXISTS start_geofence_name VARCHAR;
ALTER TABLE trips ADD COLUMN IF NOT EXISTS end_geofence_name VARCHAR;
ALTER TABLE trips ADD COLUMN IF NOT EXISTS extra_fields VARCHAR;

ALTER TABLE vehicles ADD COLUMN IF NOT EXISTS fuel_type VARCHAR;              -- wire fuel_type, else engine_type
ALTER TABLE vehicles ADD COLUMN IF NOT EXISTS vehicle_class VARCHAR;          -- wire vehicle_class, else vehicle_type
ALTER TABLE vehicles ADD COLUMN IF NOT EXISTS extra_fields VARCHAR;

ALTER TABLE geofences ADD COLUMN IF NOT EXISTS extra_fields VARCHAR;
ALTER TABLE fuel_fills ADD COLUMN IF NOT EXISTS extra_fields VARCHAR;
ALTER TABLE vehicle_activity ADD COLUMN IF NOT EXISTS extra_fields VARCHAR;
ALTER TABLE drivers ADD COLUMN IF NOT EXISTS extra_fields VARCHAR;
ALTER TABLE geofence_visits ADD COLUMN IF NOT EXISTS extra_fields VARCHAR;

ALTER TABLE carpool_bookings ADD COLUMN IF NOT EXISTS booking_status_known BOOLEAN;
ALTER TABLE carpool_bookings ADD COLUMN IF NOT EXISTS extra_fields VARCHAR;
ALTER TABLE carpool_drivers ADD COLUMN IF NOT EXISTS setup_status_known BOOLEAN;
ALTER TABLE carpool_drivers ADD COLUMN IF NOT EXISTS extra_fields VARCHAR;
ALTER TABLE carpool_vehicles ADD COLUMN IF NOT EXISTS setup_status_known BOOLEAN;
ALTER TABLE carpool_vehicles ADD COLUMN IF NOT EXISTS extra_fields VARCHAR;
