-- Finished runs per account and outcome, with their requests and retries (the /metrics counters).
SELECT account, outcome, count(*)::BIGINT AS runs, coalesce(sum(requests), 0)::BIGINT AS requests,
       coalesce(sum(retries), 0)::BIGINT AS retries
FROM runs
WHERE outcome <> 'running'
GROUP BY account, outcome
ORDER BY account, outcome
