/**
 * The status memo (createVersionedMemo): one computation per version at a time, and while a sync
 * runs (the version moves with every committed group) callers get the latest value kept instead
 * of each waiting for a recomputation; with no sync running, a new version is always computed.
 */
import { describe, expect, it } from 'vitest';
import { createVersionedMemo } from '../../src/server/report-cache.ts';

/** A computation the test finishes by hand. */
function gate<T>() {
  let open!: (v: T) => void;
  const done = new Promise<T>((r) => (open = r));
  return { done, open };
}

describe('createVersionedMemo', () => {
  it('callers of the same version share one computation', async () => {
    const memo = createVersionedMemo<string>(4);
    const g = gate<string>();
    let runs = 0;
    const compute = () => {
      runs++;
      return g.done;
    };
    const a = memo.through('v1', 'k', compute);
    const b = memo.through('v1', 'k', compute);
    g.open('status@v1');
    expect(await Promise.all([a, b])).toEqual(['status@v1', 'status@v1']);
    expect(runs).toBe(1);
    expect(await memo.through('v1', 'k', () => Promise.resolve('again'))).toBe('status@v1');
  });

  it('no sync running: a new version is computed and waited for', async () => {
    const memo = createVersionedMemo<string>(4, () => false);
    await memo.through('v1', 'k', () => Promise.resolve('old'));
    const g = gate<string>();
    const p = memo.through('v2', 'k', () => g.done);
    let settled = false;
    void p.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 5));
    expect(settled).toBe(false);
    g.open('new');
    expect(await p).toBe('new');
  });

  it('while a sync runs: the latest value at once, the new one kept when computed', async () => {
    let syncing = true;
    const memo = createVersionedMemo<string>(4, () => syncing);
    // nothing kept yet: the first caller waits for its computation
    expect(await memo.through('v1', 'k', () => Promise.resolve('old'))).toBe('old');
    const g = gate<string>();
    let runs = 0;
    const compute = () => {
      runs++;
      return g.done;
    };
    expect(await memo.through('v2', 'k', compute)).toBe('old');
    expect(await memo.through('v2', 'k', compute)).toBe('old');
    expect(runs).toBe(1);
    g.open('new');
    await new Promise((r) => setTimeout(r, 0));
    expect(await memo.through('v2', 'k', compute)).toBe('new');
    // another key has nothing kept: it is computed
    expect(await memo.through('v2', 'other', () => Promise.resolve('x'))).toBe('x');
    syncing = false;
  });

  it('peek: the value last computed for a family, only while a sync runs', async () => {
    let syncing = false;
    const memo = createVersionedMemo<string>(4, () => syncing);
    // keys of one family differ by the minute; the family is what the caller asks for
    expect(await memo.through('v1', 'acme|10:00', () => Promise.resolve('at 10:00'), 'acme')).toBe(
      'at 10:00',
    );
    expect(memo.peek('acme')).toBeUndefined(); // no sync: the caller asks for the version
    syncing = true;
    expect(memo.peek('acme')).toBe('at 10:00');
    expect(memo.peek('other')).toBeUndefined();
    expect(await memo.through('v2', 'acme|10:01', () => Promise.resolve('at 10:01'), 'acme')).toBe(
      'at 10:00',
    );
    await new Promise((r) => setTimeout(r, 0));
    expect(memo.peek('acme')).toBe('at 10:01');
    syncing = false;
    expect(memo.peek('acme')).toBeUndefined();
  });

  it('a failed computation is not kept and does not answer later callers', async () => {
    const memo = createVersionedMemo<string>(4, () => true);
    await expect(memo.through('v1', 'k', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await memo.through('v1', 'k', () => Promise.resolve('ok'))).toBe('ok');
  });
});
