-- What a commit of trips over [$2, $3) of account $1 computes the facts of again besides the
-- range's own days (src/store/facts.ts), in one scan of the trips that run into the range:
-- first_start  the earliest start of the trips that start before $2 and end at or after it (NULL:
--              none): the API answers a window with every trip active in it, whole
--              (fleet-api-wire-notes.md §5.3), so a commit of trips stores those that start before
--              its window too (merged by trip id), and computes the facts of the days they start on
--              again: a trip of a day no window of which was pulled is otherwise listed (the
--              logbook, the trips report) but in no fact.
-- reach        the latest end of the trips that start in [$2, $3) (NULL: none, or none ending at or
--              after $2): a trip's after-hours count on every day it runs into, so the facts of those
--              days are computed again too (the same figure as facts_trips_reach.sql's wherever it
--              is at or after $2; the caller takes it with $3).
SELECT
  min(start_time) FILTER (WHERE start_time < $2::TIMESTAMPTZ) AS first_start,
  max(end_time) FILTER (WHERE start_time >= $2::TIMESTAMPTZ) AS reach
FROM trips
WHERE account = $1 AND end_time >= $2::TIMESTAMPTZ AND start_time < $3::TIMESTAMPTZ;
