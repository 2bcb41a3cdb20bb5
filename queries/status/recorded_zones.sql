-- The zones recorded with the accounts (each on its first sync), one row per distinct zone.
SELECT DISTINCT timezone FROM accounts WHERE timezone IS NOT NULL ORDER BY timezone
