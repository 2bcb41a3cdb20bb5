-- reason_codes(): the one vocabulary of why a window is left out of a total. `code` is what the
-- exports carry (integrations depend on it, so a code never changes); `label` is what people
-- read (the dashboard shows it; fuel_windows' reason column has carried the label since it was
-- added). The classifying models (odometer_windows.sql, fuel_windows.sql) produce only these codes.
CREATE OR REPLACE TEMP MACRO reason_codes() AS TABLE
  SELECT * FROM (VALUES
    ('odometer_reset', 'odometer', 'odometer reset'),
    ('terminal_has_changed', 'odometer', 'tracker changed'),
    ('odometer_reset and terminal_has_changed', 'odometer', 'odometer reset and tracker changed'),
    ('fuel_counter_went_down', 'fuel_consumed', 'counter went down'),
    ('fuel_counter_missing', 'fuel_consumed', 'counter reading missing'),
    ('fuel_level_missing', 'fuel_level', 'no level estimate')
  ) AS r(code, stream, label);
-- reason_label(code): the label of a reason code (NULL for NULL).
CREATE OR REPLACE TEMP MACRO reason_label(c) AS (SELECT label FROM reason_codes() WHERE code = c);
