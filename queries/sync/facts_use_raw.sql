-- The reports over the raw tables (issue 29): puts vehicle_day_facts_raw, the daily facts
-- computed now from the raw rows through the models, in the place of the stored facts on one
-- connection (src/store/models.ts useRawFacts). The comparison test runs every fact-based report
-- both ways; nothing in the product runs it.
CREATE OR REPLACE TEMP MACRO vehicle_day_facts(acct, zone, from_day, to_day) AS TABLE
  SELECT * FROM vehicle_day_facts_raw(acct, zone, from_day, to_day);
-- and the coverage computed now from the ledger in the place of the stored day_coverage
CREATE OR REPLACE TEMP MACRO vehicle_streams_day_coverage(acct, zone, from_day, to_day, now_ts, streams) AS TABLE
  SELECT * FROM vehicle_streams_day_coverage_raw(acct, zone, from_day, to_day, now_ts, streams);
CREATE OR REPLACE TEMP MACRO fleet_stream_day_coverage(acct, zone, from_day, to_day, now_ts, stream_name) AS TABLE
  SELECT * FROM fleet_stream_day_coverage_raw(acct, zone, from_day, to_day, now_ts, stream_name);
-- and the stored coverage rows of the vehicles' streams (what fleet_day_coverage and
-- vehicle_month_coverage count) computed now from the ledger
CREATE OR REPLACE TEMP MACRO vehicle_stream_day_rows(acct, zone, from_day, to_day, streams) AS TABLE
  SELECT * FROM vehicle_stream_day_rows_raw(acct, zone, from_day, to_day, streams);
-- and the stored coverage rows of the fleet-wide streams (what open_days_touched reads)
CREATE OR REPLACE TEMP MACRO fleet_stream_day_rows(acct, zone, from_day, to_day, streams) AS TABLE
  SELECT * FROM fleet_stream_day_rows_raw(acct, zone, from_day, to_day, streams);
-- and the trips' day facts per driver (trip_day_facts) computed now from the trips
CREATE OR REPLACE TEMP MACRO trip_day_facts_in(acct, zone, from_day, to_day) AS TABLE
  SELECT * FROM trip_day_facts_in_raw(acct, zone, from_day, to_day);
