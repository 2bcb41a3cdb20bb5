-- The stored status of bookings about to be replaced (for the status history): $1 account, $2 booking ids as a list literal.
SELECT booking_id, booking_status, first_seen_at
FROM carpool_bookings
WHERE account = $1 AND list_contains($2::BIGINT[], booking_id)
