-- The booking-status rules, once. Lateness comes only from booking_status (ACTIVE_LATE,
-- RETURNED_LATE), never from returned_at against end_time. A status the sync stored without
-- knowing it (carpool_bookings.booking_status_known = FALSE: the API added it after this version)
-- makes every figure that depends on it unknown: the flags below are NULL for it, never FALSE,
-- and a count over bookings that include one is NULL (count_known). NULL `known` (a row stored
-- before the flag existed, when only known statuses could be stored) is known.
--   booking_late(status, known)         late by its status
--   booking_checked_out(status, known)  the vehicle was picked up (active, returned or terminated)
--   booking_declined(status, known)     declined
--   booking_cancelled(status, known)    cancelled
--   count_known(flag)                   rows whose flag is TRUE; NULL when any row's flag is NULL
-- Approval, from the API's is_approved flag and the status (a row of the booking or of its
-- history, carpool_booking_history; a status this version does not know is neither pending nor
-- decided by its status, its flag still counts):
--   booking_pending(status, is_approved)  waiting for a decision: not approved, REQUESTED or
--                                         EXPIRING_APPROVAL
--   booking_decided(status, is_approved)  approved or declined
--   booking_booked(status, is_approved)   approved and not cancelled: its scheduled hours are booked
CREATE OR REPLACE TEMP MACRO booking_late(status, known) AS
  CASE WHEN known IS NOT FALSE THEN status IN ('BOOKING_STATUS_ACTIVE_LATE', 'BOOKING_STATUS_RETURNED_LATE') END;
CREATE OR REPLACE TEMP MACRO booking_checked_out(status, known) AS
  CASE WHEN known IS NOT FALSE THEN status IN (
    'BOOKING_STATUS_ACTIVE', 'BOOKING_STATUS_ACTIVE_ALMOST_LATE', 'BOOKING_STATUS_ACTIVE_LATE',
    'BOOKING_STATUS_RETURNED', 'BOOKING_STATUS_RETURNED_LATE', 'BOOKING_STATUS_FORCE_TERMINATED'
  ) END;
CREATE OR REPLACE TEMP MACRO booking_declined(status, known) AS
  CASE WHEN known IS NOT FALSE THEN status = 'BOOKING_STATUS_DECLINED' END;
CREATE OR REPLACE TEMP MACRO booking_cancelled(status, known) AS
  CASE WHEN known IS NOT FALSE THEN status = 'BOOKING_STATUS_CANCELLED' END;
CREATE OR REPLACE TEMP MACRO count_known(flag) AS
  CASE WHEN count(*) FILTER (WHERE flag IS NULL) = 0 THEN count(*) FILTER (WHERE flag) END;
CREATE OR REPLACE TEMP MACRO booking_pending(status, is_approved) AS
  NOT is_approved AND status IN ('BOOKING_STATUS_REQUESTED', 'BOOKING_STATUS_EXPIRING_APPROVAL');
CREATE OR REPLACE TEMP MACRO booking_decided(status, is_approved) AS
  is_approved OR status IN ('BOOKING_STATUS_APPROVED', 'BOOKING_STATUS_DECLINED');
CREATE OR REPLACE TEMP MACRO booking_booked(status, is_approved) AS
  is_approved AND status <> 'BOOKING_STATUS_CANCELLED';

-- carpool_vehicles_known(acct): whether the carpool vehicle list is known. While GET
-- /carpool/vehicles is refused (endpoint_access: 403 or 404) the list is not, so whether a vehicle
-- is in the pool, and every count and hour over the pool, is NULL, never FALSE or 0.
CREATE OR REPLACE TEMP MACRO carpool_vehicles_known(acct) AS
  NOT EXISTS (
    SELECT 1 FROM endpoint_access
    WHERE account = acct AND endpoint = 'GET /carpool/vehicles' AND state <> 'ok'
  );
