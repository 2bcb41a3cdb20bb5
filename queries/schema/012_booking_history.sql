-- Every observed status change of a booking, with when it was seen.
CREATE TABLE IF NOT EXISTS carpool_booking_history (
  account        VARCHAR NOT NULL,
  booking_id     BIGINT NOT NULL,
  booking_status VARCHAR NOT NULL,
  is_approved    BOOLEAN NOT NULL,
  seen_at        TIMESTAMPTZ NOT NULL,
  run_id         VARCHAR NOT NULL,
  PRIMARY KEY (account, booking_id, seen_at)
);
