-- Coverage per account and stream: the span synced and the windows by status.
SELECT account, stream,
       min(window_start) AS covered_from,
       max(window_end) AS covered_to,
       count(*) FILTER (WHERE status = 'done') AS done,
       count(*) FILTER (WHERE status = 'incomplete') AS incomplete,
       count(*) FILTER (WHERE status = 'flagged') AS flagged,
       count(*) FILTER (WHERE status = 'failed') AS failed,
       -- failed because the API's pages did not add up to page 1's total (src/api/paginate.ts)
       count(*) FILTER (WHERE status = 'failed' AND reason LIKE 'E_INCOMPLETE:%') AS failed_incomplete,
       max(fetched_at) AS last_fetched
FROM ledger
GROUP BY account, stream
ORDER BY account, stream
