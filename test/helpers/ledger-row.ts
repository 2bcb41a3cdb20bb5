/** The ledger columns a hand-filled report fixture may change from a settled row's. */
export interface LedgerRowMore {
  status?: string;
  reason?: string | null;
  run_id?: string;
  rows?: number;
}

/**
 * A ledger row for hand-filled report fixtures: `stream` of `scope` over [start, end), fetched at
 * `nowMs`; settled (done, run r1, one row, one request) unless `more` says otherwise.
 */
export const ledgerRow = (
  account: string,
  stream: string,
  scope: string,
  start: number,
  end: number,
  nowMs: number,
  more: LedgerRowMore = {},
) => ({
  account,
  stream,
  scope,
  window_start: start,
  window_end: end,
  status: 'done',
  fetched_at: nowMs,
  run_id: 'r1',
  rows: 1,
  requests: 1,
  ...more,
});
