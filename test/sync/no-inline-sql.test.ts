/**
 * The sync names its queries (queries/sync/*.sql through src/store/queries.ts); no SQL is written
 * in src/sync. Every string and template literal of every src/sync/**.ts file is checked for SQL
 * statements (parsed with the TypeScript compiler, so comments and prose do not count).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SYNC_DIR = fileURLToPath(new URL('../../src/sync/', import.meta.url));

const SQL = [
  /\bselect\b[\s\S]*\bfrom\b/i,
  /\binsert\s+(or\s+\w+\s+)?into\b/i,
  /\bupdate\s+\w+\s+set\b/i,
  /\bdelete\s+from\b/i,
  /\b(create|drop|alter)\s+(or\s+replace\s+)?(temp\s+|temporary\s+)?(table|view|macro|index|sequence)\b/i,
  /\bmerge\s+into\b/i,
  /\bwith\s+\w+\s+as\s*\(/i,
];

const looksLikeSql = (text: string) => SQL.some((re) => re.test(text));

/** The text of every string and template literal in `source` (a template's parts joined). */
function literals(source: string, file = 'x.ts'): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) out.push(n.text);
    else if (ts.isTemplateExpression(n))
      out.push([n.head.text, ...n.templateSpans.map((s) => s.literal.text)].join(' ? '));
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

describe('no SQL text in src/sync', () => {
  it('finds the SQL the sync used to write inline (the check can fail)', () => {
    const old = `
      await con.run("UPDATE runs SET outcome = 'interrupted', ended_at = now() WHERE account = $1", [a]);
      const r = await con.runAndReadAll(
        'SELECT count(*)::INTEGER AS n FROM ledger WHERE account = $1 AND stream = $2', []);
      await con.run(\`UPDATE runs SET ended_at = \${x}, outcome = $3 WHERE run_id = $1\`, []);
      // a comment that says SELECT x FROM y is prose, not SQL
      log.info('window failed', { stream });`;
    expect(literals(old).filter(looksLikeSql)).toHaveLength(3);
  });

  it('has none in any src/sync file', () => {
    const found = files(SYNC_DIR).flatMap((f) =>
      literals(readFileSync(f, 'utf8'), f)
        .filter(looksLikeSql)
        .map((text) => `${f.slice(SYNC_DIR.length)}: ${text.slice(0, 80)}`),
    );
    expect(found).toEqual([]);
    expect(files(SYNC_DIR).length).toBeGreaterThan(10);
  });
});
