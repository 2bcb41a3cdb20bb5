-- Values the API sent that this version does not know (queries/models/unknown_values.sql): kept
-- as sent, listed here so a user sees them; the figures that depend on them are blank.
SELECT record, field, value, records, example_id FROM unknown_values($account);
