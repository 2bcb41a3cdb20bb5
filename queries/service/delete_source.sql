-- The account's service plan source, replaced by a newly loaded file.
DELETE FROM service_plan_source WHERE account = $account;
