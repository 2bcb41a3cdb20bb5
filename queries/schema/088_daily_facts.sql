-- Daily facts (issue 29): per account, ledger stream, vehicle and local day (the account's zone)
-- the figures the day- and month-grain reports add up, computed by the model layer
-- (queries/models/daily_facts.sql) in the same transaction that commits the stream's rows and
-- ledger rows, so a report over them never sees a window's rows without its facts. Each ledger
-- stream's writer keeps only its own rows (stream), so the parallel writers never touch a row of
-- one another. A day without a row has nothing of that stream (not a zero: coverage says whether
-- it was synced). Rebuilt for an account by `fleetsync sync --rebuild-facts` and by a re-zone.
--   windows          odometer / fuel windows starting that day (a window counts on the local day it
--                    starts, as the monthly figures take it into the month it starts)
--   left_out         of them, those left out of the totals (flagged odometer, counter left out)
--   distance_m       odometer: the counted distance (NULL when none of the day's windows counts)
--   used_l           fuel: the counted litres (NULL when none counts)
--   last_window_end  the latest end of the windows starting that day (whether a range holds them whole)
--   trips, trip_distance_m   trips starting that day and their trip distance
--   toll_passages    toll passages entered that day
CREATE TABLE IF NOT EXISTS daily_facts (
  account          VARCHAR NOT NULL,
  stream           VARCHAR NOT NULL,
  vehicle_id       BIGINT NOT NULL,
  day              DATE NOT NULL,
  windows          INTEGER,
  left_out         INTEGER,
  distance_m       DOUBLE,
  used_l           DOUBLE,
  last_window_end  TIMESTAMPTZ,
  trips            INTEGER,
  trip_distance_m  DOUBLE,
  toll_passages    INTEGER
);
