-- The account's service intervals, replaced by a newly loaded file.
DELETE FROM service_intervals WHERE account = $account;
