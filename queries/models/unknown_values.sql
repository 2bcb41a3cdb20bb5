-- unknown_values(acct): what the API sent that this version does not know — an enum value outside
-- the list the sync knows, stored exactly as sent with its `*_known` flag FALSE (issue 23). One
-- row per record kind, field and value: how many stored records carry it and the smallest id
-- among them. The figures that depend on such a value are unknown (booking_status.sql).
CREATE OR REPLACE TEMP MACRO unknown_values(acct) AS TABLE
  SELECT * FROM (
    SELECT 'booking' AS record, 'booking_status' AS field, booking_status AS value,
      count(*)::INTEGER AS records, min(booking_id)::VARCHAR AS example_id
    FROM carpool_bookings WHERE account = acct AND booking_status_known = FALSE GROUP BY ALL
    UNION ALL
    SELECT 'carpool driver', 'setup_status', setup_status, count(*)::INTEGER, min(driver_id)
    FROM carpool_drivers WHERE account = acct AND setup_status_known = FALSE GROUP BY ALL
    UNION ALL
    SELECT 'carpool vehicle', 'setup_status', setup_status, count(*)::INTEGER, min(vehicle_id)::VARCHAR
    FROM carpool_vehicles WHERE account = acct AND setup_status_known = FALSE GROUP BY ALL
    UNION ALL
    SELECT 'trip', 'trip_type', trip_type, count(*)::INTEGER, min(trip_id)
    FROM trips WHERE account = acct AND trip_type_known = FALSE GROUP BY ALL
  )
  ORDER BY record, field, value;
