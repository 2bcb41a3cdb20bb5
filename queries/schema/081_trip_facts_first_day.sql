-- The trips' facts on the day before a synced stretch (session 14): a commit of trips computed its
-- facts from the window's first day, so a trip that started the evening before and ran into it
-- was stored but missing from daily_facts and trip_day_facts (a logbook's manifest and page totals,
-- logbook_years, the scorecards added one trip fewer than its rows). Commits now start from that
-- trip's day (src/store/facts.ts tripsSpan); this upgrade computes every account's trip facts again
-- (src/store/db.ts) so a database synced before agrees with its rows. No schema change.
SELECT 1;
