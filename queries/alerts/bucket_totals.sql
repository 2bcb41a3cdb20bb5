-- Requests, retries and 429 answers per account and rate bucket over every run (each column of
-- runs is {"bucket": n}; a run recorded before requests_by_bucket existed counts in none).
WITH per AS (
  SELECT r.account, 'requests' AS what, b.bucket, CAST(r.requests_by_bucket ->> b.bucket AS BIGINT) AS n
  FROM runs AS r, unnest(json_keys(r.requests_by_bucket)) AS b(bucket)
  WHERE r.requests_by_bucket IS NOT NULL
  UNION ALL
  SELECT r.account, 'retries', b.bucket, CAST(r.retries_by_bucket ->> b.bucket AS BIGINT)
  FROM runs AS r, unnest(json_keys(r.retries_by_bucket)) AS b(bucket)
  WHERE r.retries_by_bucket IS NOT NULL
  UNION ALL
  SELECT r.account, 'http_429', b.bucket, CAST(r.http_429 ->> b.bucket AS BIGINT)
  FROM runs AS r, unnest(json_keys(r.http_429)) AS b(bucket)
  WHERE r.http_429 IS NOT NULL
)
SELECT account, what, bucket, sum(n)::BIGINT AS n
FROM per
GROUP BY ALL
ORDER BY account, what, bucket
