/**
 * A static guard for principle 7 ("values are bound parameters, never string interpolation"):
 * every template literal in src/ that looks like SQL may interpolate only the expressions listed
 * here, each of which comes from code (registry columns, generated temp names, table constants),
 * never from a request or a command-line value. A new `${…}` inside SQL fails this test until it
 * is bound as a parameter (or, if it truly is a code constant, reviewed and listed here).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SCANNED = [
  'src/reports',
  'src/server',
  'src/store',
  'src/sync',
  'src/commands',
  'src/changes',
  'src/api',
];

/** file → interpolations allowed inside SQL text, with why they are safe. */
const ALLOWED: Record<string, string[]> = {
  // Column and table names of the store's own tables (code constants; table, schema and catalog
  // checked against IDENT before the LIMIT 0 read of their columns; `cols` the table's own column
  // names from that read); deleteRanges' WHERE and its ranges' unnested lists (`keys`) hold only
  // names checked against the table's columns and `$n` placeholders (every value is bound).
  'src/store/write.ts': [
    'stage',
    'table',
    'schema',
    'cols',
    "cols.join(', ')",
    "catalog ? `${catalog}.` : ''",
    'where',
    'keys',
    'on',
  ],
  // Registry column names (quoted by ident), the named query text, a generated temp path
  // (quoted by sqlString), and COPY options chosen by format.
  'src/reports/export.ts': ["cols.join(', ')", 'stripStatement(sql)', 'select', 'sqlString(path)', 'options'],
  // The re-zone's swap: the generated staging path beside the database (quoted by sqlString) and
  // the stream registry's table names (checked against [a-z_]).
  'src/store/rezone.ts': ['sqlString(x.stagingPath)', 'table'],
  // The named query text wrapped for a JSON page (LIMIT/OFFSET bound) and its totals (registry
  // column names quoted by ident).
  // orderOf: the sort column is one of the registry's (anything else throws), quoted by ident();
  // the direction is a boolean.
  // Its totals' unknown counts: the same registry column names by ident(), aliased by their index.
  // table: the temp table of an aggregating report's page, `report_page_<pid>_<counter>` by ident().
  'src/reports/run.ts': [
    "cols.join(', ')",
    'stripStatement(sql)',
    'orderOf(def, page)',
    'ident(c)',
    'i',
    'table',
  ],
};

const SQL = /\b(SELECT|INSERT|UPDATE|DELETE|COPY|CREATE|DROP|ATTACH|PRAGMA|FROM|WHERE|VALUES)\b/;

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (p.endsWith('.ts')) yield p;
  }
}

interface Template {
  text: string;
  exprs: string[];
  line: number;
}

/** The template literals of a TypeScript source (strings and comments skipped, nesting handled). */
export function templates(src: string): Template[] {
  const out: Template[] = [];
  let i = 0;
  const lineAt = (k: number) => src.slice(0, k).split('\n').length;
  const skipString = (q: string) => {
    i++;
    while (i < src.length && src[i] !== q) i += src[i] === '\\' ? 2 : 1;
    i++;
  };
  const template = (): void => {
    const start = i;
    i++;
    let text = '';
    const exprs: string[] = [];
    while (i < src.length && src[i] !== '`') {
      if (src[i] === '\\') {
        text += src.slice(i, i + 2);
        i += 2;
      } else if (src[i] === '$' && src[i + 1] === '{') {
        i += 2;
        const from = i;
        let depth = 1;
        while (i < src.length && depth > 0) {
          const c = src[i]!;
          if (c === '`') template();
          else if (c === "'" || c === '"') skipString(c);
          else {
            if (c === '{') depth++;
            if (c === '}') depth--;
            i++;
          }
        }
        exprs.push(src.slice(from, i - 1).trim());
        text += '${}';
      } else text += src[i++];
    }
    i++;
    out.push({ text, exprs, line: lineAt(start) });
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === '/' && src[i + 1] === '/') i = src.indexOf('\n', i) < 0 ? src.length : src.indexOf('\n', i);
    else if (c === '/' && src[i + 1] === '*') i = src.indexOf('*/', i) + 2;
    else if (c === "'" || c === '"') skipString(c);
    else if (c === '`') template();
    else i++;
  }
  return out;
}

describe('SQL is never built from input', () => {
  it('finds the interpolations it must (the scanner works)', () => {
    const t = templates(
      "const a = 'x`y'; // `SELECT ${no}`\nrun(`SELECT * FROM t WHERE a = ${x} AND ${`${y}`}`);",
    );
    expect(t.filter((x) => SQL.test(x.text)).map((x) => x.exprs)).toEqual([['x', '`${y}`']]);
  });

  it('every ${…} inside SQL text in src/ is a listed code constant', () => {
    const found: string[] = [];
    for (const dir of SCANNED)
      for (const file of files(join(ROOT, dir))) {
        const rel = relative(ROOT, file);
        for (const t of templates(readFileSync(file, 'utf8'))) {
          if (!t.exprs.length || !SQL.test(t.text)) continue;
          for (const e of t.exprs)
            if (!(ALLOWED[rel] ?? []).includes(e))
              found.push(`${rel}:${t.line}: \${${e}} in \`${t.text.slice(0, 80)}\``);
        }
      }
    expect(found).toEqual([]);
  });

  it('the named queries in queries/ hold no interpolation placeholders', () => {
    const bad: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (p.endsWith('.sql') && /\$\{|\{\{/.test(readFileSync(p, 'utf8'))) bad.push(relative(ROOT, p));
      }
    };
    walk(join(ROOT, 'queries'));
    expect(bad).toEqual([]);
  });
});
