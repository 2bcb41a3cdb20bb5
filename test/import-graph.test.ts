/**
 * src/'s imports go one way (issue 26): no module reaches itself through its imports, and the
 * layers below do not import the layers above them (the sync does not stand on the reports; the
 * store, the rules' floor, stands on neither). The graph is what TypeScript's own pre-processor
 * reads from each file: static imports and re-exports, `import type` (a type-only circle still
 * ties the modules' meaning together, and is one edit away from a runtime one) and dynamic
 * `import()` (a lazy edge is an edge of the layering all the same).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

/** Files a layer's files may not import (paths relative to the root, with a trailing slash). */
const FORBIDDEN: readonly { from: string; to: string }[] = [
  { from: 'src/sync/', to: 'src/reports/' },
  { from: 'src/store/', to: 'src/sync/' },
  { from: 'src/store/', to: 'src/reports/' },
];

/** Every .ts file under `dir` (relative to `root`, `/`-separated) → the files it imports there. */
function importGraph(root: string, dir: string): Map<string, string[]> {
  const rel = (p: string) => relative(root, p).split('\\').join('/');
  const files = readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => join(root, dir, f));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((spec) => spec.startsWith('./') || spec.startsWith('../'))
      .map((spec) => {
        const target = resolve(dirname(file), spec);
        const found = [target, target.replace(/\.js$/, '.ts')].find(
          (p) => p.endsWith('.ts') && existsSync(p),
        );
        // An edge the graph could not place would hide a circle: name it instead.
        if (!found) throw new Error(`${rel(file)}: cannot resolve the import ${JSON.stringify(spec)}`);
        return rel(found);
      });
    graph.set(rel(file), [...new Set(targets)]);
  }
  return graph;
}

/**
 * Each circle of the graph, named by one shortest path around it (`a → b → a`), with how many
 * files its strongly connected component holds: Tarjan's components, then a breadth-first
 * search inside each from its first file back to itself.
 */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)?.includes(v)) components.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);

  return components.map((component) => {
    const inside = new Set(component);
    const start = component[0]!;
    const cameFrom = new Map<string, string>();
    const queue = [start];
    let last = start;
    search: for (let i = 0; i < queue.length; i++)
      for (const w of graph.get(queue[i]!) ?? []) {
        if (!inside.has(w)) continue;
        if (w === start) {
          last = queue[i]!;
          break search;
        }
        if (!cameFrom.has(w)) {
          cameFrom.set(w, queue[i]!);
          queue.push(w);
        }
      }
    const path = [start];
    for (let v = last; v !== start; v = cameFrom.get(v)!) path.splice(1, 0, v);
    const size = component.length > 1 ? ` (${component.length} files in one circle)` : '';
    return `${[...path, start].join(' → ')}${size}`;
  });
}

function forbiddenImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  return [...graph].flatMap(([file, targets]) =>
    FORBIDDEN.filter((f) => file.startsWith(f.from)).flatMap((f) =>
      targets
        .filter((t) => t.startsWith(f.to))
        .map((t) => `${file} imports ${t} (${f.from} stands below ${f.to})`),
    ),
  );
}

describe("src/'s import graph", () => {
  const graph = importGraph(ROOT, 'src');

  it('is read from every source file', () => {
    expect(graph.size).toBeGreaterThan(100);
    // the layering edges the checks below rest on are seen, type-only ones included
    expect(graph.get('src/sync/rules.ts')).toContain('src/store/models.ts');
    expect(graph.get('src/sync/types.ts')).toContain('src/store/db.ts');
  });

  it('has no circle', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('keeps the sync off the reports and the store below both', () => {
    expect(forbiddenImports(graph)).toEqual([]);
  });
});

describe('the checks', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-graph-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => writeFileSync(join(dir, name), text);

  it('name a circle closed by a type-only import, and an import the layers forbid', () => {
    write('a.ts', "import { b } from './b.ts';\nexport const a = b + 1;\n");
    write('b.ts', "import type { C } from './c.ts';\nexport const b: C = 1;\n");
    write('c.ts', "export type C = number;\nexport type A = typeof import('./a.ts');\n");
    write('d.ts', "import { a } from './a.js';\nexport const d = a;\n");
    const graph = importGraph(dir, '.');
    expect(graph.get('d.ts')).toEqual(['a.ts']);
    expect(circles(graph)).toEqual(['a.ts → b.ts → c.ts → a.ts (3 files in one circle)']);

    const layered = new Map([
      ['src/sync/rules.ts', ['src/reports/run.ts']],
      ['src/store/models.ts', ['src/store/queries.ts']],
    ]);
    expect(forbiddenImports(layered)).toEqual([
      'src/sync/rules.ts imports src/reports/run.ts (src/sync/ stands below src/reports/)',
    ]);
  });
});
