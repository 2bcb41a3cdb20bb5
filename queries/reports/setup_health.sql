-- Carpool setup health: drivers and vehicles in SETUP_INCOMPLETE and why, by the spec's rules
-- (vehicle: missing department, category, default location or license class; driver:
-- can_book_carpool false, or neither auto nor specific-vehicle booking allowed, else a
-- department or license requirement of the client).
WITH
v AS (
  SELECT
    'vehicle' AS kind,
    cv.vehicle_id::VARCHAR AS id,
    cv.registration AS name,
    cv.department,
    cv.setup_status,
    coalesce(nullif(concat_ws(', ',
      CASE WHEN coalesce(cv.department, '') = '' THEN 'no department' END,
      CASE WHEN coalesce(cv.category, '') = '' THEN 'no category' END,
      CASE WHEN coalesce(cv.default_location, '') = '' THEN 'no default location' END,
      CASE WHEN coalesce(cv.license_class, '') = '' THEN 'no license class' END), ''),
      'a requirement configured for the client') AS reason
  FROM carpool_vehicles AS cv
  WHERE cv.account = $account AND cv.setup_status = 'SETUP_INCOMPLETE'
    AND vehicle_selected(cv.vehicle_id, cv.department, $vehicle::BIGINT, $department::VARCHAR)
),
d AS (
  SELECT
    'driver' AS kind,
    cd.driver_id AS id,
    trim(concat_ws(' ', cd.first_name, cd.last_name)) AS name,
    cd.department,
    cd.setup_status,
    CASE
      WHEN NOT cd.can_book_carpool THEN 'cannot book carpool (can_book_carpool is false)'
      WHEN NOT (cd.allow_system_auto_booking OR cd.allow_specific_vehicle_booking)
        THEN 'neither auto booking nor specific-vehicle booking allowed'
      ELSE coalesce(nullif(concat_ws(', ',
        CASE WHEN coalesce(cd.department, '') = '' THEN 'no department' END,
        CASE WHEN coalesce(cd.license_type_ids, '[]') IN ('', '[]') THEN 'no license types' END), ''),
        'a department or license requirement of the client')
    END AS reason
  FROM carpool_drivers AS cd
  WHERE cd.account = $account AND cd.setup_status = 'SETUP_INCOMPLETE'
    -- a driver has no vehicle: listed only when no vehicle is selected
    AND vehicle_selected(NULL, cd.department, $vehicle::BIGINT, $department::VARCHAR)
)
SELECT * FROM v
UNION ALL
SELECT * FROM d
ORDER BY kind, name, id;
