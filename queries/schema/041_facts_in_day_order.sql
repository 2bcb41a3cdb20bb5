-- The trips' day facts (trip_day_facts) and the day's coverage (day_coverage) stored in day order
-- (issue 29): the reports read them over a range of local days, and DuckDB skips a row group whose
-- days lie outside it only when the rows are stored by day. A rebuild (`--rebuild-facts`, the
-- upgrades that compute facts) wrote them in the hash order of its grouping, every row group
-- holding every day. The upgrade rewrites both tables sorted by account and day
-- (queries/sync/facts_day_order.sql, run by src/store/db.ts once the tables exist; the rows stay
-- the same), and rebuilds now insert them month by month (src/store/facts.ts). No schema change.
SELECT 1;
