-- How many fact rows an account has (what `fleetsync facts rebuild` reports).
SELECT count(*) AS n FROM daily_facts WHERE account = $1;
