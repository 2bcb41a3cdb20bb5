-- The trips' day facts and the day's coverage rewritten in (account, day) order, the same rows
-- (the upgrade 041: queries/schema/041_facts_in_day_order.sql). Inside the caller's transaction.
CREATE TEMP TABLE facts_in_day_order AS SELECT * FROM trip_day_facts ORDER BY account, day;
DELETE FROM trip_day_facts;
INSERT INTO trip_day_facts SELECT * FROM facts_in_day_order;
DROP TABLE facts_in_day_order;
CREATE TEMP TABLE coverage_in_day_order AS SELECT * FROM day_coverage ORDER BY account, day;
DELETE FROM day_coverage;
INSERT INTO day_coverage SELECT * FROM coverage_in_day_order;
DROP TABLE coverage_in_day_order;
