-- 'fuel_counter_went_down' when a counter answer went down (fuel_counter_went_down in
-- queries/models/fuel_windows.sql), else NULL: $1 counter_start_l, $2 counter_end_l as the API
-- answered them.
SELECT fuel_counter_went_down($1::DOUBLE, $2::DOUBLE) AS code
