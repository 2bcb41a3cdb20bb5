import { describe, expect, it } from 'vitest';
import { formatSummary } from '../../src/sync/report.ts';
import type { RunSummary } from '../../src/sync/types.ts';

const base: RunSummary = {
  run_id: '20260302T020000-0a1b2c3d',
  account: 'acme',
  outcome: 'failed',
  started_ms: 0,
  ended_ms: 1_500,
  requests: 1,
  retries: 0,
  http429ByBucket: {},
  streams: {},
  errors: [],
};

describe("the sync's printed summary", () => {
  it('a run refused before any stream names the run as what failed, with no empty table', () => {
    const reason = 'E_AUTH: the API refused the credentials (401)';
    const text = formatSummary({
      ...base,
      reason,
      errors: [{ stream: '*', scope: '*', window: '*', reason }],
    });
    expect(text).toContain(`failures:\n  the run: ${reason}`);
    expect(text).toContain('no stream ran');
    expect(text).not.toMatch(/\* \* \*|stream +rows +requests/);
  });

  it('a failed window names its stream, scope and window', () => {
    const text = formatSummary({
      ...base,
      outcome: 'partial',
      streams: { trips: { rows: 5, requests: 3, windows: { done: 1, failed: 1 } } },
      errors: [{ stream: 'trips', scope: '*', window: '2026-03-01/2026-03-02', reason: 'E_INCOMPLETE: …' }],
    });
    expect(text).toMatch(/stream +rows +requests/);
    expect(text).toContain('failures:\n  trips * 2026-03-01/2026-03-02: E_INCOMPLETE: …');
  });

  it("a failed window's times are the account's wall time with the zone named, as status shows them", () => {
    // 2026-10-24T13:00Z is 00:00 on 25 Oct in Sydney (AEDT, +11:00), a local day's window
    const text = formatSummary({
      ...base,
      zone: 'Australia/Sydney',
      outcome: 'partial',
      streams: { odometer: { rows: 0, requests: 1, windows: { failed: 1 } } },
      errors: [
        {
          stream: 'odometer',
          scope: '1002',
          window: '2026-10-24T13:00:00.000Z/2026-10-25T13:00:00.000Z',
          reason: 'E_HTTP: 500',
        },
      ],
    });
    expect(text).toContain(
      'failures:\n  odometer 1002 2026-10-25 00:00–2026-10-26 00:00 (Australia/Sydney): E_HTTP: 500',
    );
    expect(text).not.toContain('Z/');
  });
});
