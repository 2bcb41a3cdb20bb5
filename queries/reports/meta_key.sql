-- What "complete through" depends on, cheaply: the latest run (id, end, outcome) and a
-- fingerprint of the account's ledger (rows, done/flagged rows, latest fetch, latest window end).
-- reportMeta reuses its cached "complete through" while these are unchanged. `prices_key`: the
-- prices file last loaded (it changes report values without a run), for the report answer cache.
-- `service_key`: the service plan last loaded and the services recorded (service_due changes with
-- them, also from `service done` or POST /api/service/done while the server runs).
SELECT
  (SELECT concat_ws('|', sha256, loaded_at) FROM price_source WHERE account = $account) AS prices_key,
  concat_ws('|',
    (SELECT concat_ws('|', sha256, loaded_at) FROM service_plan_source WHERE account = $account),
    (SELECT concat_ws('|', count(*), max(recorded_at)) FROM service_records WHERE account = $account)
  ) AS service_key,
  (SELECT run_id FROM runs WHERE account = $account ORDER BY started_at DESC LIMIT 1) AS run_id,
  (SELECT concat_ws('|', run_id, ended_at, outcome) FROM runs WHERE account = $account
    ORDER BY started_at DESC LIMIT 1) AS run_key,
  concat_ws('|',
    count(*),
    count(*) FILTER (WHERE status IN ('done', 'flagged')),
    count(*) FILTER (WHERE status IN ('incomplete', 'failed')),
    max(fetched_at),
    max(window_end),
    min(window_start)
  ) AS ledger_key
FROM ledger
WHERE account = $account;
