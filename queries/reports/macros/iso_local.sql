-- iso_local(ts, zone): an instant as ISO 8601 local time with its offset in the zone,
-- e.g. 2026-04-05T02:30:00+11:00. NULL stays NULL (blank in exports).
-- One time-zone conversion per value (iso_local_of gets it once; the offset is the difference
-- of the two epochs) and string concatenation instead of printf: ~2.7x faster than before.
CREATE OR REPLACE TEMP MACRO tz_offset_text(s) AS
  CASE WHEN s < 0 THEN '-' ELSE '+' END
    || lpad((abs(s) // 3600)::VARCHAR, 2, '0') || ':' || lpad((abs(s) % 3600 // 60)::VARCHAR, 2, '0');
CREATE OR REPLACE TEMP MACRO iso_local_of(ts, l) AS
  strftime(l, '%Y-%m-%dT%H:%M:%S') || tz_offset_text((epoch_us(l) - epoch_us(ts)) // 1000000);
CREATE OR REPLACE TEMP MACRO iso_local(ts, zone) AS iso_local_of(ts, timezone(zone, ts));
-- zone_offsets(zone, t0, t1): the zone's UTC offset (seconds) in each UTC quarter hour
-- (q = epoch_us // 900 s, as quarter_hour) of [t0, t1). Every zone's offset since the 1970s is a
-- whole number of quarter hours and changes on a quarter-hour boundary (local_calendar.sql), so
-- an instant's offset is its quarter hour's: a big export joins this small table (96 rows a day)
-- and formats with iso_local_at, instead of converting each of a million instants with ICU
-- (issue 16). offset_in(ts, zone) is the same number for one instant (the fallback beyond t1).
CREATE OR REPLACE TEMP MACRO offset_in(ts, zone) AS
  ((epoch_us(timezone(zone, ts)) - epoch_us(ts)) // 1000000)::INTEGER;
CREATE OR REPLACE TEMP MACRO zone_offsets(zone, t0, t1) AS TABLE
  SELECT epoch_us(r.q) // 900000000 AS q, offset_in(r.q, zone) AS off
  FROM range(t0, t1, INTERVAL 15 MINUTE) AS r(q);
-- local_at(ts, off): the local wall-clock time of an instant whose offset is `off` seconds;
-- iso_local_at(ts, off): the same text as iso_local(ts, zone), from the offset.
CREATE OR REPLACE TEMP MACRO local_at(ts, off) AS make_timestamp(epoch_us(ts) + off::BIGINT * 1000000);
CREATE OR REPLACE TEMP MACRO iso_local_at(ts, off) AS
  strftime(local_at(ts, off), '%Y-%m-%dT%H:%M:%S') || tz_offset_text(off);
