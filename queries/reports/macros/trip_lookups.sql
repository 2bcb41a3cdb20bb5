-- The trips report's scalar lookups (queries/reports/lookups/: the key type and the lists are
-- made on the connection before the report runs; src/reports/trip-lookups.ts):
--   trip_lookups_ready(acct, zone, t0, t1): true when they were made for this account and zone
--       and cover [t0, t1); else the query fails (never another account's names, never a gap)
--   trip_key(k): a key's position in the lists ('v' || vehicle_id, 'd' || driver_id), NULL
--       when the account does not know it (as a LEFT JOIN finds no row)
--   trip_vehicle(id): a vehicle's position in the vehicles' lists: by id when the lookups say
--       the ids are dense (vdense), else trip_key('v' || id)
--   trip_qi(ts): an instant's position in the quarter-hour lists, NULL outside them
--   trip_offset(lk, ts, qi, zone): the zone's offset of an instant from the quarter-hour list, its
--       own conversion outside it (as zone_offsets joined, with offset_in beyond its end)
--   trip_iso_local(ts, off, off_text): iso_local_at(ts, off) with the offset's text from the
--       quarter-hour list (lk.off_text[qi]: made once per quarter hour, not per trip; issue 29),
--       its own text when that is NULL (outside the list). Not offset_in() a second time: DuckDB
--       takes an expression used twice out of its coalesce and runs it for every row (an ICU
--       conversion per trip)
-- The lists (registration, department, driver_name, off, off_text) are read from `lk`: the
-- lookups as the column of a one-row relation the trips are crossed with (trips.sql), not
-- getvariable() per row. DuckDB turns a constant list back into a vector for every chunk of 2,048
-- rows (~10 ns an entry; at 5,000 vehicles the lists hold ~5,000 entries each over 45 days, the
-- offsets' ~35,000 over a year): the trips export's COPY 2.07 -> 1.67 s of CPU per 1 M trips (issue
-- 29); a column of the one row is referenced as it is. The scalars (vdense, vmin, vmax, q0, q1) stay getvariable(): a constant scalar costs nothing.
-- (the key type as an empty placeholder until lookups/trip_keys.sql makes the account's)
CREATE OR REPLACE TEMP TYPE trip_lookup_key AS ENUM ('');
CREATE OR REPLACE TEMP MACRO trip_lookups_ready(acct, zone, t0, t1) AS
  CASE
    WHEN getvariable('trip_lookups').account IS NOT DISTINCT FROM acct
      AND getvariable('trip_lookups').zone IS NOT DISTINCT FROM zone
      AND getvariable('trip_lookups').t0 <= t0
      AND getvariable('trip_lookups').t1 >= t1
      THEN true
    ELSE error('trips: the lookups were not made for this account, zone and range (trip_lookups)')
  END;
CREATE OR REPLACE TEMP MACRO trip_key(k) AS enum_code(TRY_CAST(k AS trip_lookup_key)) + 1;
CREATE OR REPLACE TEMP MACRO trip_vehicle(id) AS
  CASE
    WHEN getvariable('trip_lookups').vdense
      THEN CASE WHEN id BETWEEN getvariable('trip_lookups').vmin AND getvariable('trip_lookups').vmax
        THEN id - getvariable('trip_lookups').vmin + 1 END
    ELSE trip_key('v' || id)
  END;
CREATE OR REPLACE TEMP MACRO trip_qi(ts) AS
  CASE
    WHEN epoch_us(ts) // 900000000 BETWEEN getvariable('trip_lookups').q0 AND getvariable('trip_lookups').q1
      THEN (epoch_us(ts) // 900000000 - getvariable('trip_lookups').q0)::BIGINT + 1
  END;
CREATE OR REPLACE TEMP MACRO trip_offset(lk, ts, qi, zone) AS
  coalesce(lk.off[qi], offset_in(ts, zone));
CREATE OR REPLACE TEMP MACRO trip_iso_local(ts, off, off_text) AS
  strftime(local_at(ts, off), '%Y-%m-%dT%H:%M:%S') || coalesce(off_text, tz_offset_text(off));
