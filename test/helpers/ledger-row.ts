/** A settled (done) ledger row for hand-filled report fixtures: `stream` of `scope` over [start, end). */
export const doneLedgerRow = (
  account: string,
  stream: string,
  scope: string,
  start: number,
  end: number,
  nowMs: number,
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
});
