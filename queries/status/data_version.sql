-- A fingerprint of everything GET /api/status reads (runs, ledger, recorded zones, every
-- account): the server reuses its last status answer while this is unchanged.
SELECT concat_ws('#',
  (SELECT concat_ws('|', count(*), max(started_at), max(ended_at),
                    count(*) FILTER (WHERE ended_at IS NULL), sum(requests), max(run_id))
     FROM runs),
  (SELECT concat_ws('|', count(*),
                    count(*) FILTER (WHERE status IN ('done', 'flagged')),
                    count(*) FILTER (WHERE status IN ('incomplete', 'failed')),
                    count(*) FILTER (WHERE status = 'failed'),
                    max(fetched_at), max(window_end), min(window_start))
     FROM ledger),
  (SELECT string_agg(concat_ws('=', account, timezone, updated_at), ',' ORDER BY account) FROM accounts)
) AS version;
