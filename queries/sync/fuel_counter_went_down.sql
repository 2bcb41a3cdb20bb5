-- 'fuel_counter_went_down' for each counter answer that went down (fuel_counter_went_down in
-- queries/models/fuel_windows.sql), else NULL, for many answers at once: $1 counter_start_l[],
-- $2 counter_end_l[] as the API answered them (lists of one length), one row per answer in the
-- lists' order.
SELECT fuel_counter_went_down(s, e) AS code
FROM (
  SELECT unnest($1::DOUBLE[]) AS s, unnest($2::DOUBLE[]) AS e, unnest(range(len($1::DOUBLE[]))) AS i
)
ORDER BY i
