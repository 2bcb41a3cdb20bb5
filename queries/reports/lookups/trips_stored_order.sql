-- Whether the account's trips of the range are stored in the trips report's order (start_time,
-- trip_id): each row's key against the previous row's in scan order (a window with an empty OVER
-- keeps the scan's order). Reads two columns of the range's row groups; the export then streams
-- the rows as stored instead of sorting them.
SELECT count(*) FILTER (WHERE p_start IS NOT NULL AND (p_start > start_time OR (p_start = start_time AND p_id > trip_id))) = 0 AS stored_order
FROM (
  SELECT start_time, trip_id, lag(start_time) OVER () AS p_start, lag(trip_id) OVER () AS p_id
  FROM trips
  WHERE account = $account
    AND start_time >= local_range_start($zone, $from_day)
    AND start_time < local_range_end($zone, $to_day)
);
