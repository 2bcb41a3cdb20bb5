/**
 * xl_text (queries/reports/macros/xl_text.sql) on every first character a cell can start with:
 * its shortcut (two string comparisons for a cell starting with a letter, a digit or above) must
 * give what the rule says, written out here independently: a cell that begins with = + - @, a tab
 * or a CR and does not read as a number gets a leading apostrophe; every other cell is as it is.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { loadSql } from '../../src/store/queries.ts';

const TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r']);
/** Reads as a number (a decimal, surrounding blanks allowed, as DuckDB's cast to DOUBLE). */
const NUMBER = /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i;
const expected = (x: string) => (x !== '' && TRIGGERS.has(x[0]!) && !NUMBER.test(x) ? `'${x}` : x);

// every ASCII first character and a few multi-byte ones, each alone and before some text, and
// the numbers the rule lets through
const FIRSTS = [...Array.from({ length: 127 }, (_, i) => String.fromCharCode(i + 1)), 'é', 'Ω', '€', '😀'];
const CELLS = [
  '',
  ...FIRSTS,
  ...FIRSTS.map((c) => `${c}cmd()`),
  ...FIRSTS.map((c) => `${c}1`),
  '-12.5',
  '+3',
  '-',
  '=1+1',
  '@SUM(A1)',
  'AB-123',
  '59.3293,18.0686',
  '-33.86,151.2',
];

describe('xl_text', () => {
  it('neutralises exactly the cells the rule names, every first character', async () => {
    const inst = await DuckDBInstance.create(':memory:');
    const con = await inst.connect();
    try {
      await con.run(loadSql('reports/macros/xl_text'));
      await con.run('CREATE TABLE c (i INTEGER, x VARCHAR)');
      const app = await con.createAppender('c');
      CELLS.forEach((x, i) => {
        app.appendInteger(i);
        app.appendVarchar(x);
        app.endRow();
      });
      app.appendInteger(CELLS.length);
      app.appendNull();
      app.endRow();
      app.closeSync();
      const rows = (await con.runAndReadAll('SELECT i, xl_text(x) AS y FROM c ORDER BY i')).getRowObjectsJS();
      expect(rows.map((r) => r.y)).toEqual([...CELLS.map(expected), null]);
      // the rule did change some cells and left others: the comparison above is not vacuous
      expect(CELLS.filter((x) => expected(x) !== x).length).toBeGreaterThan(10);
    } finally {
      con.closeSync();
      inst.closeSync();
    }
  });
});
