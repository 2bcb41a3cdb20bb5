/**
 * The ledger's rules, each with hand-worked windows: when a grid window counts as covered (done or
 * flagged pieces tile it, nothing else does), when a window has settled (the look-back for late
 * data), where a window reaching into the look-back is cut, how point records are counted per
 * piece, and that a failure is recorded only where nothing is stored yet.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FleetsyncError } from '../../src/errors.ts';
import { inTransaction, openDatabase, type Database } from '../../src/store/db.ts';
import {
  lateStatus,
  insertLedger,
  isCovered,
  ledgerWrite,
  pointLedger,
  readLedgers,
  recordFailedWindow,
  settledPieces,
  settledStatus,
  type LedgerRowRead,
  type WindowStatus,
} from '../../src/sync/ledger.ts';
import type { StreamContext } from '../../src/sync/unit.ts';

const H = 3_600_000;
const DAY = 24 * H;
const T0 = Date.parse('2026-03-01T00:00:00Z');
const ms = (iso: string) => Date.parse(iso);
const at = (d: number) => T0 + d * DAY;
const row = (status: WindowStatus, fromDay: number, toDay: number): LedgerRowRead => ({
  scope: '1',
  startMs: at(fromDay),
  endMs: at(toDay),
  status,
  fetchedMs: at(40),
});
/** What the ledger functions read of a stream's context: the clock, the zone, the look-back. */
const context = (nowIso: string, zone = 'Europe/Berlin', settleMs = 72 * H) =>
  // no vehicle data horizons known: only the look-back decides
  ({
    now: () => ms(nowIso),
    zone,
    settleMs,
    horizons: new Map(),
    maxLateMs: 14 * 24 * H,
  }) as unknown as StreamContext;
const show = (ws: { startMs: number; endMs: number }[]) =>
  ws.map(
    (w) =>
      `${new Date(w.startMs).toISOString().slice(0, 16)}/${new Date(w.endMs).toISOString().slice(0, 16)}`,
  );

describe('a grid window is covered when done or flagged pieces tile it', () => {
  const w = { startMs: at(0), endMs: at(10) };

  it.each([
    ['one done row over exactly the window', [row('done', 0, 10)], true],
    ['a done and a flagged half, listed in either order', [row('flagged', 5, 10), row('done', 0, 5)], true],
    ['overlapping pieces', [row('done', 0, 6), row('done', 5, 10)], true],
    ['one row reaching past both ends', [row('done', -3, 13)], true],
    ['a day missing in the middle', [row('done', 0, 4), row('done', 5, 10)], false],
    ['the last day missing', [row('done', 0, 9)], false],
    ['the first day missing', [row('done', 1, 10)], false],
    ['an incomplete half', [row('done', 0, 5), row('incomplete', 5, 10)], false],
    ['a failed half', [row('failed', 0, 5), row('done', 5, 10)], false],
    ['a neighbour ending where the window starts', [row('done', -5, 0), row('done', 0, 9)], false],
    ['no rows', [], false],
  ])('%s → %s', (_name, rows, covered) => {
    expect(isCovered(w, rows)).toBe(covered);
  });

  it('a scope with no ledger at all is a gap', () => {
    expect(isCovered(w, undefined)).toBe(false);
  });
});

describe('settling: the look-back for late data', () => {
  const w = { startMs: ms('2026-04-01T00:00Z'), endMs: ms('2026-04-10T00:00Z') };

  it('a window is incomplete until the look-back after its end has passed, then done', () => {
    expect(settledStatus(context('2026-04-12T23:59:59Z'), w)).toEqual({
      status: 'incomplete',
      reason: 'window ends within the 72 h look-back for late data; pulled again later',
    });
    expect(settledStatus(context('2026-04-13T00:00:00Z'), w)).toEqual({ status: 'done', reason: null });
    expect(settledStatus(context('2026-04-05T00:00:00Z', 'UTC', 24 * H), w).reason).toBe(
      'window ends within the 24 h look-back for late data; pulled again later',
    );
  });

  it('a month reaching into the look-back is cut at the local midnight before it', () => {
    // Now 20 Apr 10:00 UTC − 72 h = 17 Apr 10:00 UTC = 12:00 CEST: cut at 17 Apr 00:00 CEST.
    const ctx = context('2026-04-20T10:00Z');
    const april = { startMs: ms('2026-03-31T22:00Z'), endMs: ms('2026-04-30T22:00Z') };
    expect(show(settledPieces(ctx, april))).toEqual([
      '2026-03-31T22:00/2026-04-16T22:00',
      '2026-04-16T22:00/2026-04-30T22:00',
    ]);
    // March ended before the cut: whole.
    const march = { startMs: ms('2026-02-28T23:00Z'), endMs: ms('2026-03-31T22:00Z') };
    expect(settledPieces(ctx, march)).toEqual([march]);
  });

  it('point records are counted in the piece their time falls in; the requests are booked once', () => {
    const ctx = context('2026-04-20T10:00Z');
    const april = { startMs: ms('2026-03-31T22:00Z'), endMs: ms('2026-04-30T22:00Z') };
    const times = [
      '2026-03-31T22:00Z', // the window's first instant
      '2026-04-16T21:59:59Z', // the last second before the cut
      '2026-04-16T22:00Z', // the cut itself: the recent piece
      '2026-04-19T08:00Z',
      '2026-04-30T22:00Z', // the window's end: the next window's
    ].map(ms);
    expect(pointLedger(ctx, 'trips', '7', april, times, 3)).toEqual([
      {
        stream: 'trips',
        scope: '7',
        startMs: april.startMs,
        endMs: ms('2026-04-16T22:00Z'),
        status: 'done',
        reason: null,
        rows: 2,
        requests: 3,
      },
      {
        stream: 'trips',
        scope: '7',
        startMs: ms('2026-04-16T22:00Z'),
        endMs: april.endMs,
        status: 'incomplete',
        reason: 'window ends within the 72 h look-back for late data; pulled again later',
        rows: 2,
        requests: 0,
      },
    ]);
  });
});

describe('writing a pulled window', () => {
  it('replaces every ledger row inside the window once per scope its entries name', () => {
    const w = { startMs: at(0), endMs: at(31) };
    const entry = (scope: string, d0: number, d1: number) => ({
      stream: 'odometer',
      scope,
      startMs: at(d0),
      endMs: at(d1),
      status: 'done' as const,
      rows: 1,
      requests: 1,
    });
    const { deletes, insert } = ledgerWrite('acme', 'run-1', at(40), 'odometer', w, [
      entry('1', 0, 15),
      entry('2', 0, 31),
      entry('1', 15, 31),
    ]);
    expect(deletes).toEqual(
      ['1', '2'].map((scope) => ({
        table: 'ledger',
        eq: { stream: 'odometer', scope },
        within: ['window_start', 'window_end'],
        startMs: at(0),
        endMs: at(31),
      })),
    );
    expect(insert.table).toBe('ledger');
    expect(insert.rows).toHaveLength(3);
    expect(insert.rows[0]).toEqual({
      account: 'acme',
      stream: 'odometer',
      scope: '1',
      window_start: at(0),
      window_end: at(15),
      status: 'done',
      rows: 1,
      requests: 1,
      fetched_at: at(40),
      run_id: 'run-1',
      reason: null,
      sample: null,
      last_event_at: null,
      // no paged read told: unknown, not 0 (040_ledger_announced.sql)
      announced: null,
      kept: null,
      duplicates: null,
    });
  });
});

describe('a failure is recorded only where nothing is stored yet', () => {
  const dirs: string[] = [];
  const dbs: Database[] = [];
  afterEach(() => {
    for (const db of dbs.splice(0)) db.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('a bulk window failing for vehicles 1 and 2, where 1 was stored before: only 2 is marked failed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetsync-ledger-'));
    dirs.push(dir);
    const db = await openDatabase(join(dir, 'l.duckdb'));
    dbs.push(db);
    const con = await db.connect();
    const w = { startMs: at(5), endMs: at(6) };
    // Vehicle 1 was stored by an earlier run over the whole month; 3 only on the day before.
    await insertLedger(con, 'acme', 'run-0', at(3), [
      {
        stream: 'fuel_consumed',
        scope: '1',
        startMs: at(0),
        endMs: at(31),
        status: 'done',
        rows: 1,
        requests: 1,
      },
      {
        stream: 'fuel_consumed',
        scope: '3',
        startMs: at(4),
        endMs: at(5),
        status: 'done',
        rows: 1,
        requests: 1,
      },
    ]);
    const failure = new FleetsyncError('E_PAYLOAD', 'fuel_consumed_l is not a number', {
      details: { sample: 'x'.repeat(400) },
    });
    await inTransaction(con, () =>
      recordFailedWindow(
        con,
        'acme',
        'run-1',
        at(40),
        { ledgerStream: 'fuel_consumed', scope: '1,2,3', window: w },
        failure,
      ),
    );
    const ledger = (await readLedgers(con, 'acme', { startMs: at(0), endMs: at(31) })).get('fuel_consumed')!;
    expect(ledger.get('1')?.map((r) => r.status)).toEqual(['done']);
    expect(ledger.get('2')).toEqual([
      { scope: '2', startMs: w.startMs, endMs: w.endMs, status: 'failed', fetchedMs: at(40) },
    ]);
    expect(
      ledger
        .get('3')
        ?.map((r) => `${r.status} ${r.startMs === w.startMs}`)
        .sort(),
    ).toEqual(['done false', 'failed true']);
    const reader = await con.runAndReadAll(
      "SELECT reason, length(sample) AS sample_len FROM ledger WHERE status = 'failed' ORDER BY scope",
    );
    expect(reader.getRowObjectsJson()).toEqual([
      { reason: 'E_PAYLOAD: fuel_consumed_l is not a number', sample_len: '300' },
      { reason: 'E_PAYLOAD: fuel_consumed_l is not a number', sample_len: '300' },
    ]);
    con.closeSync();
  });
});

describe('late vehicles: waiting, and accepted only when the API was asked', () => {
  const day = { startMs: ms('2026-04-01T22:00Z'), endMs: ms('2026-04-02T22:00Z') };
  const withHorizon = (nowIso: string, askedIso: string) => {
    const ctx = context(nowIso);
    // the vehicle's data reaches only to 1 April; the API answered for its odometer up to `asked`
    ctx.horizons.set('7', { registration: 'AB 123', ms: ms('2026-04-01T12:00Z'), askedMs: ms(askedIso) });
    return ctx;
  };
  it('within the maximum lateness a late vehicle holds the window open', () => {
    expect(lateStatus(withHorizon('2026-04-10T00:00Z', '2026-04-09T22:00Z'), day, '7')).toMatchObject({
      status: 'incomplete',
      reason: expect.stringContaining('AB 123 reaches only to 2026-04-01T12:00Z'),
    });
  });
  it('past it, the window is accepted incomplete when the API was asked past its end', () => {
    expect(lateStatus(withHorizon('2026-04-30T00:00Z', '2026-04-29T22:00Z'), day, '*')).toMatchObject({
      status: 'flagged',
      reason: expect.stringMatching(/^accepted incomplete: after the maximum lateness of 14 days/),
    });
  });
  it('a horizon that stops where the odometer request failed is unknown: the window waits, never accepted', () => {
    expect(lateStatus(withHorizon('2026-04-30T00:00Z', '2026-04-01T22:00Z'), day, '*')).toMatchObject({
      status: 'incomplete',
    });
  });
});
