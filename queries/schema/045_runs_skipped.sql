-- The streams a run skipped because an endpoint they need is not permitted or not available:
-- [{"stream","endpoint","state","reason"}]; NULL for runs recorded before this column existed.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS skipped JSON;
