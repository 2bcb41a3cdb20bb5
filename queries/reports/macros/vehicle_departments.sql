-- vehicle_departments(acct): every known vehicle of an account with its registration and its
-- department (the carpool vehicle's department when present, else the vehicle description).
CREATE OR REPLACE TEMP MACRO vehicle_departments(acct) AS TABLE
  SELECT
    coalesce(v.vehicle_id, cv.vehicle_id) AS vehicle_id,
    coalesce(v.registration, cv.registration) AS registration,
    coalesce(nullif(cv.department, ''), nullif(v.description, '')) AS department
  FROM (SELECT * FROM vehicles WHERE account = acct) AS v
  FULL OUTER JOIN (SELECT * FROM carpool_vehicles WHERE account = acct) AS cv
    ON cv.vehicle_id = v.vehicle_id;
