-- The reason code each odometer answer is flagged with (odometer_flag in
-- queries/models/odometer_windows.sql), NULL when the window counts, for many answers at once:
-- $1 odometer_reset[], $2 terminal_has_changed[] as the API answered them (lists of one length),
-- one row per answer in the lists' order.
SELECT odometer_flag(r, c) AS code
FROM (
  SELECT unnest($1::BOOLEAN[]) AS r, unnest($2::BOOLEAN[]) AS c, unnest(range(len($1::BOOLEAN[]))) AS i
)
ORDER BY i
