-- The values an account's stored records carry that this version does not know (the model
-- unknown_values, queries/models/unknown_values.sql; the connection has the models defined).
SELECT record, field, value, records, example_id FROM unknown_values($1);
