/**
 * A block of rows held as columns gives every cell back as the row held it: numbers (integers,
 * fractions, -0, NaN), Dates as equal Dates, booleans, bigints, strings, and null apart from
 * undefined (a key tells them apart); also across concatenated blocks whose columns differ in
 * form or are missing, and through views that pick and order rows.
 */
import { describe, expect, it } from 'vitest';
import { RowBlock, type Row } from '../../src/store/rows.ts';

const NAMES = ['n', 'd', 'b', 's', 'mixed', 'big', 'late'] as const;

/** Row k of a varied table; `late` appears only in some rows (and never in the first). */
const row = (k: number): Row => ({
  n: k % 7 === 0 ? null : k % 11 === 0 ? undefined : k % 5 === 0 ? -0 : k % 13 === 0 ? NaN : (k - 50) / 3,
  d: k % 6 === 0 ? null : new Date(1_700_000_000_000 + k * 61_001),
  b: k % 4 === 0 ? undefined : k % 3 === 0,
  s: k % 9 === 0 ? null : `reg ${k % 4}`,
  mixed: k % 3 === 0 ? k : k % 3 === 1 ? `t${k}` : new Date(k),
  big: k % 2 === 0 ? 2n ** 60n + BigInt(k) : null,
  ...(k % 10 === 9 ? { late: k } : {}),
});

const cellsOf = (b: RowBlock) =>
  Array.from({ length: b.length }, (_, i) => Object.fromEntries(NAMES.map((c) => [c, b.cell(i, c)])));
const asGiven = (rows: readonly Row[]) => rows.map((r) => Object.fromEntries(NAMES.map((c) => [c, r[c]])));

describe('rows held as columns', () => {
  it('give every cell back as the row held it, null and undefined apart', () => {
    const rows = Array.from({ length: 100 }, (_, k) => row(k));
    const block = RowBlock.pack(rows);
    expect(block.length).toBe(100);
    const back = cellsOf(block);
    expect(back).toEqual(asGiven(rows));
    for (let k = 0; k < 100; k++) {
      expect(Object.is(back[k]!.n, rows[k]!.n)).toBe(true); // -0 and NaN exactly
      expect(back[k]!.d instanceof Date || back[k]!.d === null).toBe(true);
    }
    expect(block.cell(7, 'n')).toBeNull();
    expect(block.cell(11, 'n')).toBeUndefined();
    expect(block.column('d').key(1)).toBe(1_700_000_000_000 + 61_001); // an instant keys as epoch ms
    expect(block.column('absent').get(0)).toBeUndefined();
    // the objects wrapped as they are read the same
    const wrapped = RowBlock.wrap(rows);
    expect(cellsOf(wrapped)).toEqual(asGiven(rows));
    expect(cellsOf(RowBlock.concat([wrapped, block]))).toEqual(asGiven([...rows, ...rows]));
  });

  it('concatenated blocks, views of views: the same cells in the order picked', () => {
    const rows = Array.from({ length: 60 }, (_, k) => row(k));
    // parts whose columns differ: `n` all numbers in one part, strings in another; `late` missing in some
    const odd: Row[] = [{ n: 'x', s: 1 }, { n: 2 }];
    const parts = [rows.slice(0, 25), odd, rows.slice(25, 26), rows.slice(26)];
    const all = RowBlock.concat(parts.map((p) => RowBlock.pack(p)));
    const given = parts.flat();
    expect(cellsOf(all)).toEqual(asGiven(given));
    const pick = Uint32Array.of(5, 61, 0, 26, 61);
    const view = all.take(pick);
    expect(cellsOf(view)).toEqual(asGiven([...pick].map((p) => given[p]!)));
    const again = view.take(Uint32Array.of(3, 1));
    expect(cellsOf(again)).toEqual(asGiven([given[26]!, given[61]!]));
    // views concatenated: copied out in their own order
    expect(cellsOf(RowBlock.concat([view, again]))).toEqual([...cellsOf(view), ...cellsOf(again)]);
  });
});
