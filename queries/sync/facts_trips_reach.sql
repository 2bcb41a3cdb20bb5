-- The latest end of the trips of account $1 that start in [$2, $3) (NULL: none): a trip's
-- after-hours count on every day it runs into, so a commit of trips computes the facts of those
-- days again too (src/store/facts.ts).
SELECT max(end_time) AS reach FROM trips
WHERE account = $1 AND start_time >= $2::TIMESTAMPTZ AND start_time < $3::TIMESTAMPTZ;
