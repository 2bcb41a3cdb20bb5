-- The ledger's reason of a window the sync flags for a rule of the model layer is the window's
-- reason code (queries/models/reason_codes.sql), as the sync writes it from now on (src/sync/rules.ts).
-- The free text written before is rewritten to the code, so the ledger holds one vocabulary.
UPDATE ledger SET reason = 'odometer_reset and terminal_has_changed'
WHERE stream = 'odometer' AND status = 'flagged' AND reason = 'odometer_reset, terminal_has_changed';
UPDATE ledger SET reason = 'fuel_counter_went_down'
WHERE stream = 'fuel_consumed' AND status = 'flagged' AND reason = 'fuel counter went down (counter reset)';
