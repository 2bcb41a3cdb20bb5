-- The local calendar of the account's zone, once. A from/to range is local days, both inclusive.
-- Every monthly figure (mileage, fuel, their windows, the left-out windows, kpis, top_vehicles)
-- takes a window into the local month in which it starts, and a from/to range selects the whole
-- local months it touches.
--
-- local_days(zone, from_day, to_day): the local days of a range, both inclusive, as the instants
-- [t0, t1) (an event is in the range when its instant is).
--
-- local_range_start(zone, from_day), local_range_end(zone, to_day): the same two instants as
-- scalars. A query that compares rows with them directly (`x >= local_range_start(…)`) gives
-- the scan a constant filter it prunes by, where a join with local_days leaves every row to a
-- join (issue 16).
CREATE OR REPLACE TEMP MACRO local_range_start(zone, from_day) AS timezone(zone, from_day::DATE::TIMESTAMP);
CREATE OR REPLACE TEMP MACRO local_range_end(zone, to_day) AS timezone(zone, (to_day::DATE + 1)::TIMESTAMP);
CREATE OR REPLACE TEMP MACRO local_days(zone, from_day, to_day) AS TABLE
  SELECT local_range_start(zone, from_day) AS t0, local_range_end(zone, to_day) AS t1;
-- local_month(ts, zone): the local month (YYYY-MM) of an instant.
CREATE OR REPLACE TEMP MACRO local_month(ts, zone) AS strftime(timezone(zone, ts), '%Y-%m');
-- local_months(zone, from_day, to_day): the local months the range of local days touches, as
-- instants [t0, t1) (rows are compared raw, not converted: a window is in the range when its
-- start is) and as YYYY-MM (m0, m1).
-- local_months_start(zone, from_day), local_months_end(zone, to_day): the same t0 and t1 as
-- values (with constant arguments a scan's filter on them skips the row groups outside).
CREATE OR REPLACE TEMP MACRO local_months_start(zone, from_day) AS
  timezone(zone, date_trunc('month', from_day::DATE)::TIMESTAMP);
CREATE OR REPLACE TEMP MACRO local_months_end(zone, to_day) AS
  timezone(zone, (date_trunc('month', to_day::DATE) + INTERVAL 1 MONTH)::TIMESTAMP);
CREATE OR REPLACE TEMP MACRO local_months(zone, from_day, to_day) AS TABLE
  SELECT
    local_months_start(zone, from_day) AS t0,
    local_months_end(zone, to_day) AS t1,
    strftime(from_day::DATE, '%Y-%m') AS m0,
    strftime(to_day::DATE, '%Y-%m') AS m1;
-- local_month_start(period, zone), local_month_end(period, zone): the instants a local month
-- (YYYY-MM) starts and ends.
CREATE OR REPLACE TEMP MACRO local_month_start(period, zone) AS
  timezone(zone, strptime(period || '-01', '%Y-%m-%d'));
CREATE OR REPLACE TEMP MACRO local_month_end(period, zone) AS
  timezone(zone, strptime(period || '-01', '%Y-%m-%d') + INTERVAL 1 MONTH);
-- local_month_list(zone, from_day, to_day): each local month the range of local days touches, as
-- YYYY-MM and the instants [t0, t1) it spans.
CREATE OR REPLACE TEMP MACRO local_month_list(zone, from_day, to_day) AS TABLE
  SELECT
    strftime(g.d, '%Y-%m') AS period,
    timezone(zone, g.d) AS t0,
    timezone(zone, g.d + INTERVAL 1 MONTH) AS t1
  FROM unnest(generate_series(
    date_trunc('month', from_day::DATE)::TIMESTAMP,
    date_trunc('month', to_day::DATE)::TIMESTAMP,
    INTERVAL 1 MONTH
  )) AS g(d);

-- range_months(from_day, to_day): every local month (YYYY-MM) the range touches, so a
-- vehicle × month report has a row for each, synced or not.
CREATE OR REPLACE TEMP MACRO range_months(from_day, to_day) AS TABLE
  SELECT period FROM local_month_list('UTC', from_day, to_day);
-- month_of_day(day): the month (YYYY-MM) of a local day; months_first_day(from_day) and
-- months_last_day(to_day): the first and last local day of the whole months a range touches.
CREATE OR REPLACE TEMP MACRO month_of_day(day) AS strftime(day::DATE, '%Y-%m');
CREATE OR REPLACE TEMP MACRO months_first_day(from_day) AS date_trunc('month', from_day::DATE)::DATE;
CREATE OR REPLACE TEMP MACRO months_last_day(to_day) AS last_day(to_day::DATE);
-- month_starts(first_day, last_day): the first day of each month from first_day's to last_day's,
-- as a list of dates.
CREATE OR REPLACE TEMP MACRO month_starts(first_day, last_day) AS
  list_transform(generate_series(date_trunc('month', first_day::DATE)::TIMESTAMP,
    date_trunc('month', last_day::DATE)::TIMESTAMP, INTERVAL 1 MONTH), m -> m::DATE);
-- quarter_hour(ts): the UTC quarter hour of an instant, as a number; local_period_of_quarter_hour(q,
-- grain, zone): the local day, week or month (date_trunc grain) it falls in. Every zone's offset
-- since the 1970s is a whole number of quarter hours, so a local midnight is always a quarter-hour
-- boundary and the local period of an instant is that of its quarter hour: a report can count
-- rows per quarter hour (integer arithmetic) and convert only the quarter hours to local time.
CREATE OR REPLACE TEMP MACRO quarter_hour(ts) AS epoch_us(ts) // 900000000;
CREATE OR REPLACE TEMP MACRO local_period_of_quarter_hour(q, grain, zone) AS
  date_trunc(grain::VARCHAR, timezone(zone, to_timestamp(q * 900)))::DATE;
-- months_back(day, n): the first day of the month n months before day's month (a range widened
-- for a baseline or a change from the previous month); month_before(period, n): the month
-- (YYYY-MM) n months before a month.
CREATE OR REPLACE TEMP MACRO months_back(day, n) AS (date_trunc('month', day::DATE) - to_months(n))::DATE;
CREATE OR REPLACE TEMP MACRO month_before(period, n) AS
  strftime(strptime(period || '-01', '%Y-%m-%d') - to_months(n), '%Y-%m');
