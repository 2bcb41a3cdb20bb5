-- driver_names(acct): every known driver id of an account with the name people know it by: from
-- GET /drivers (the drivers table), else from the carpool's enrolled drivers; null when neither
-- lists it (the id is then all there is).
CREATE OR REPLACE TEMP MACRO driver_names(acct) AS TABLE
  SELECT
    coalesce(d.driver_id, cd.driver_id) AS driver_id,
    coalesce(
      nullif(trim(concat_ws(' ', d.first_name, d.last_name)), ''),
      nullif(trim(concat_ws(' ', cd.first_name, cd.last_name)), '')
    ) AS driver_name
  FROM (SELECT * FROM drivers WHERE account = acct) AS d
  FULL OUTER JOIN (SELECT * FROM carpool_drivers WHERE account = acct) AS cd
    ON cd.driver_id = d.driver_id;
