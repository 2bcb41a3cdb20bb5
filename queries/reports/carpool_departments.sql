-- Carpool measures per department (of the vehicle) for bookings whose scheduled window overlaps
-- the range: late-return rate (late ÷ checked out, from booking_status only), approvals and
-- declines, approval turnaround (created → first seen approved or declined in the history,
-- for bookings seen pending first),
-- no-shows (cancelled, never picked up, after being approved, cancellation seen 30 min or more
-- after the scheduled start), and utilisation (booked hours of approved bookings within the
-- range ÷ carpool vehicles × hours of the range).
WITH
veh AS (SELECT * FROM selected_vehicles($account, $vehicle::BIGINT, $department::VARCHAR)),
rng AS (SELECT * FROM local_days($zone, $from_day, $to_day)),
-- A turnaround is known only for bookings the sync saw pending (REQUESTED or EXPIRING_APPROVAL)
-- before it saw them decided; a booking first seen already decided has no turnaround (NULL).
decided AS (
  SELECT h.booking_id, min(h.seen_at) AS at
  FROM carpool_booking_history AS h
  WHERE h.account = $account
    AND booking_decided(h.booking_status, h.is_approved)
    AND EXISTS (
      SELECT 1 FROM carpool_booking_history AS p
      WHERE p.account = h.account AND p.booking_id = h.booking_id AND p.seen_at < h.seen_at
        AND booking_pending(p.booking_status, p.is_approved)
    )
  GROUP BY h.booking_id
),
ever_approved AS (
  SELECT DISTINCT booking_id FROM carpool_booking_history WHERE account = $account AND is_approved
),
b AS (
  SELECT
    coalesce(veh.department, '(none)') AS department,
    bk.*,
    booking_checked_out(bk.booking_status, bk.booking_status_known) AS checked_out,
    booking_late(bk.booking_status, bk.booking_status_known) AS late,
    booking_declined(bk.booking_status, bk.booking_status_known) AS declined,
    (epoch(decided.at) - epoch(bk.created_at)) / 3600.0 AS turnaround_h,
    -- A status this version does not know leaves the no-show unknown (NULL), whatever else holds:
    -- `NULL AND FALSE` would read as FALSE.
    CASE WHEN booking_cancelled(bk.booking_status, bk.booking_status_known) IS NOT NULL THEN
      booking_cancelled(bk.booking_status, bk.booking_status_known) AND bk.picked_up_at IS NULL
      AND (bk.is_approved OR ea.booking_id IS NOT NULL)
      AND bk.updated_at >= bk.start_time + INTERVAL 30 MINUTE
    END AS no_show,
    greatest(0, epoch(least(bk.end_time, rng.t1)) - epoch(greatest(bk.start_time, rng.t0))) / 3600.0 AS booked_h
  FROM carpool_bookings AS bk
  CROSS JOIN rng
  JOIN veh ON veh.vehicle_id = bk.vehicle_id
  LEFT JOIN decided ON decided.booking_id = bk.booking_id
  LEFT JOIN ever_approved AS ea ON ea.booking_id = bk.booking_id
  WHERE bk.account = $account AND bk.start_time < rng.t1 AND bk.end_time > rng.t0
),
-- The carpool vehicle list is unknown while GET /carpool/vehicles is refused: its counts and
-- hours are then NULL, never 0 (queries/models/booking_status.sql).
pool_known AS (SELECT carpool_vehicles_known($account) AS known),
pool AS (
  SELECT coalesce(veh.department, '(none)') AS department, count(*) AS vehicles
  FROM carpool_vehicles AS cv
  JOIN veh ON veh.vehicle_id = cv.vehicle_id
  WHERE cv.account = $account
  GROUP BY 1
),
agg AS (
  SELECT
    department,
    count(*) AS bookings,
    count_known(checked_out) AS checked_out,
    count_known(late) AS late_returns,
    count(*) FILTER (WHERE is_approved) AS approved,
    count_known(declined) AS declined,
    count_known(no_show) AS no_shows,
    median(turnaround_h) AS turnaround_h,
    sum(booked_h) FILTER (WHERE booking_booked(booking_status, is_approved)) AS booked_h
  FROM b
  GROUP BY department
)
SELECT
  coalesce(agg.department, pool.department) AS department,
  coalesce(agg.bookings, 0)::INTEGER AS bookings,
  -- 0 for a department without bookings (no agg row); a count that depends on a status this
  -- version does not know stays NULL (count_known).
  if(agg.bookings IS NULL, 0, agg.checked_out)::INTEGER AS checked_out,
  if(agg.bookings IS NULL, 0, agg.late_returns)::INTEGER AS late_returns,
  round(agg.late_returns / nullif(agg.checked_out, 0), 4)::DOUBLE AS late_return_rate,
  coalesce(agg.approved, 0)::INTEGER AS approved,
  if(agg.bookings IS NULL, 0, agg.declined)::INTEGER AS declined,
  if(agg.bookings IS NULL, 0, agg.no_shows)::INTEGER AS no_shows,
  round(agg.turnaround_h, 2)::DOUBLE AS median_approval_turnaround_h,
  round(coalesce(agg.booked_h, 0), 2)::DOUBLE AS booked_h,
  if((SELECT known FROM pool_known), coalesce(pool.vehicles, 0), NULL)::INTEGER AS carpool_vehicles,
  if((SELECT known FROM pool_known),
    round(coalesce(pool.vehicles, 0) * (epoch((SELECT t1 FROM rng)) - epoch((SELECT t0 FROM rng))) / 3600.0, 2),
    NULL)::DOUBLE AS available_h,
  if((SELECT known FROM pool_known),
    round(coalesce(agg.booked_h, 0)
      / nullif(pool.vehicles * (epoch((SELECT t1 FROM rng)) - epoch((SELECT t0 FROM rng))) / 3600.0, 0), 4),
    NULL)::DOUBLE AS utilisation
FROM agg
FULL OUTER JOIN pool ON pool.department = agg.department
ORDER BY 1;
