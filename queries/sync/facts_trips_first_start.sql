-- The earliest start of the trips of account $1 that start before $2 and end at or after it (NULL:
-- none): the API answers a window with every trip active in it, whole (fleet-api-wire-notes.md
-- §5.3), so a commit of trips stores those that start before its window too (merged by trip id),
-- and computes the facts of the days they start on again (src/store/facts.ts): a trip of a day no
-- window of which was pulled is otherwise listed (the logbook, the trips report) but in no fact.
SELECT min(start_time) AS first_start FROM trips
WHERE account = $1 AND start_time < $2::TIMESTAMPTZ AND end_time >= $2::TIMESTAMPTZ;
