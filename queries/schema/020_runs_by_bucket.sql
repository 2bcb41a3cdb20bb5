-- Requests and retries per rate bucket of each run ({"default": 812, "fuel_consumed_bulk": 3}); NULL
-- for runs recorded before this column existed.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS requests_by_bucket JSON;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS retries_by_bucket JSON;
