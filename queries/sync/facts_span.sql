-- The instants an account's fact-bearing rows span (queries/models/daily_facts.sql): what
-- `fleetsync sync --rebuild-facts` computes again. $1 account, $2 its zone.
SELECT * FROM daily_facts_span($1, $2);
