-- 429 answers per account and rate bucket over every run (runs.http_429 is {"bucket": n}).
SELECT r.account, b.bucket, sum(CAST(r.http_429 ->> b.bucket AS BIGINT))::BIGINT AS n
FROM runs AS r, unnest(json_keys(r.http_429)) AS b(bucket)
WHERE r.http_429 IS NOT NULL
GROUP BY r.account, b.bucket
ORDER BY r.account, b.bucket
