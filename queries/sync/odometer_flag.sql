-- The reason code an odometer answer is flagged with (odometer_flag in
-- queries/models/odometer_windows.sql), NULL when the window counts: $1 odometer_reset,
-- $2 terminal_has_changed as the API answered them.
SELECT odometer_flag($1::BOOLEAN, $2::BOOLEAN) AS code
