-- The reports over the raw tables (issue 29): puts vehicle_day_facts_raw, the daily facts
-- computed now from the raw rows through the models, in the place of the stored facts on one
-- connection (src/store/models.ts useRawFacts). The comparison test runs every fact-based report
-- both ways; nothing in the product runs it.
CREATE OR REPLACE TEMP MACRO vehicle_day_facts(acct, zone, from_day, to_day) AS TABLE
  SELECT * FROM vehicle_day_facts_raw(acct, zone, from_day, to_day);
