/** The sync gate: one run at a time, and none once the server closes it. */
import { describe, expect, it } from 'vitest';
import { createSyncGate } from '../../src/server/sync-gate.ts';
import type { RunSummary } from '../../src/sync/types.ts';

describe('createSyncGate', () => {
  it('starts one run at a time, and none after close(), which waits for the run going', async () => {
    let release = () => {};
    let started = 0;
    const gate = createSyncGate(async () => {
      started++;
      await new Promise<void>((r) => (release = r));
      return { run_id: `r${started}` } as RunSummary;
    });
    const first = gate.tryRun('api');
    expect(first).not.toBeNull();
    expect(gate.tryRun('schedule')).toBeNull(); // one at a time
    let closed = false;
    const closing = gate.close().then(() => (closed = true));
    expect(gate.closed).toBe(true);
    expect(gate.tryRun('api')).toBeNull(); // closing: none starts
    await Promise.resolve();
    expect(closed).toBe(false); // waits for the run going
    release();
    await closing;
    expect(closed).toBe(true);
    expect((await first)?.run_id).toBe('r1');
    expect(gate.tryRun('api')).toBeNull(); // closed for good
    expect(started).toBe(1);
  });
});
