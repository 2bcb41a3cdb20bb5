-- Every stored coverage row of an account, before a rebuild computes them again.
DELETE FROM day_coverage WHERE account = $1;
