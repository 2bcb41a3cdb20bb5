-- How many fact rows an account has (what `fleetsync sync --rebuild-facts` reports).
SELECT count(*) AS n FROM daily_facts WHERE account = $1;
