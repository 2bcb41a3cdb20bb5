/**
 * The build: every module of src/ compiled to JavaScript in dist/, one file per module at the same
 * relative path, so `import.meta.url` finds `queries/`, `dashboard/` and node_modules as it does
 * from src/ (dist/ and src/ are both one level below the root), and each command is still imported
 * only when it runs. bin/fleetsync.js runs it: an installed process loads no TypeScript loader
 * (tsx's hooks run on a thread with a V8 isolate of its own and transpile every module at every
 * start: ~30 MB of RSS, docs/performance-log.md "Session 17 (`build`)").
 *
 * dist/build.json records what the build was made from (bin/stamp.js): the entry runs the build
 * only while src/ still matches it, and the sources through tsx otherwise. Run by `npm ci` (the
 * `prepare` script), `npm run build` and the Dockerfile. Source maps sit beside the files: run with
 * `NODE_OPTIONS=--enable-source-maps` for stack traces in src/'s lines (off by default: up to
 * ~10 MB of RSS).
 */
import { build, type Plugin } from 'esbuild';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sourceStamp } from '../bin/stamp.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Relative imports of `.ts` files become imports of the built `.js` files; nothing is bundled
 * (esbuild bundles only so that this plugin sees each import: every one is left external).
 */
const perFile: Plugin = {
  name: 'per-file',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const path = /^\.\.?\//.test(args.path) ? args.path.replace(/\.ts$/, '.js') : args.path;
      return { path, external: true };
    });
  },
};

const options = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
} as const;

/** Builds `root`/src into `outDir` (default `root`/dist): into a temp dir, then renamed whole. */
export async function buildDist(root = ROOT, outDir = join(root, 'dist')): Promise<void> {
  const src = join(root, 'src');
  const stamp = sourceStamp(src);
  const tmp = `${outDir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  await build({
    ...options,
    entryPoints: stamp.files.map((f) => join(src, f.path)),
    outbase: src,
    outdir: tmp,
    plugins: [perFile],
    sourcemap: true,
  });
  writeFileSync(join(tmp, 'build.json'), JSON.stringify(stamp));
  const old = `${outDir}.old-${process.pid}`;
  if (existsSync(outDir)) renameSync(outDir, old);
  renameSync(tmp, outDir);
  rmSync(old, { recursive: true, force: true });
}

/**
 * The bench's child processes as JavaScript (bench/lib.ts), so a measured sync or server runs
 * src/ from dist/ as an installed process does. bench/*.ts go to `outDir`; their imports of src/
 * point at dist/ (run buildDist first), and `import.meta.url` stays the source file's, so the
 * bench's own paths (deploy/, bench/results/) resolve as from bench/.
 */
export async function buildBench(
  root = ROOT,
  outDir = join(root, 'bench', 'results', 'child'),
): Promise<void> {
  const bench = join(root, 'bench');
  const src = join(root, 'src') + sep;
  const toDist: Plugin = {
    name: 'bench-to-dist',
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        const target = resolve(args.resolveDir, args.path);
        if (target.startsWith(src))
          return {
            path: pathToFileURL(join(root, 'dist', relative(src, target))).href.replace(/\.ts$/, '.js'),
            external: true,
          };
        if (dirname(target) === bench) return { path: args.path.replace(/\.ts$/, '.js'), external: true };
        return { path: pathToFileURL(target).href, external: true }; // never loaded by a child
      });
      b.onResolve({ filter: /.*/ }, (args) =>
        args.kind === 'entry-point' ? undefined : { path: args.path, external: true },
      );
      b.onLoad({ filter: /\.ts$/ }, (args) => ({
        contents: readFileSync(args.path, 'utf8').replaceAll(
          'import.meta.url',
          JSON.stringify(pathToFileURL(args.path).href),
        ),
        loader: 'ts',
      }));
    },
  };
  await build({
    ...options,
    entryPoints: readdirSync(bench)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join(bench, f)),
    outdir: outDir,
    plugins: [toDist],
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildDist();
