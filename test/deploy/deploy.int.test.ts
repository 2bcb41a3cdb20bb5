/**
 * deploy/: the systemd units pass `systemd-analyze verify` (CI installs the tool: a missing tool
 * fails there instead of skipping), the container's health check script says healthy only on a
 * 200 from /healthz, and the image's layout — the files the Dockerfile copies, started with its
 * entry point and settings (outside docker: no daemon here) — serves; every package src/ imports is a
 * production dependency, so `npm ci --omit=dev` is enough. An operator's env file (systemd's
 * EnvironmentFile=, docker's --env-file) cannot undo what a unit or the image needs.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DEPLOY = join(ROOT, 'deploy');
const UNITS = readdirSync(join(DEPLOY, 'systemd')).map((f) => join(DEPLOY, 'systemd', f));

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-deploy-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
const hasAnalyze = analyze.status === 0;
if (!hasAnalyze && !process.env.CI)
  console.warn(
    'deploy.test: systemd-analyze not found (apt-get install systemd); the unit checks are skipped',
  );

const verify = (files: string[]) =>
  spawnSync('systemd-analyze', ['verify', '--man=no', ...files], { encoding: 'utf8' });

describe('systemd units', () => {
  it('CI has systemd-analyze (.ci/run installs it), so the unit checks run there', () => {
    if (process.env.CI) expect(hasAnalyze, 'systemd-analyze is missing in CI').toBe(true);
  });

  it.skipIf(!hasAnalyze)(
    'the service, the sync service and its timer, the worker pass systemd-analyze verify',
    () => {
      expect(UNITS.map((u) => relative(DEPLOY, u)).sort()).toEqual([
        'systemd/fleetsync-sync.service',
        'systemd/fleetsync-sync.timer',
        'systemd/fleetsync-worker.service',
        'systemd/fleetsync.service',
      ]);
      const r = verify(UNITS);
      // Any line about our units is a finding (warnings exit 0 but are still printed).
      const ours = `${r.stdout}${r.stderr}`.split('\n').filter((l) => /fleetsync/.test(l));
      expect(ours, ours.join('\n')).toEqual([]);
      expect(r.status).toBe(0);
    },
  );

  it.skipIf(!hasAnalyze)('verify does catch a broken unit (the check can fail)', () => {
    const bad = join(dir, 'fleetsync.service');
    const text = readFileSync(join(DEPLOY, 'systemd', 'fleetsync.service'), 'utf8');
    writeFileSync(bad, text.replace('DynamicUser=yes', 'DynamicUser=perhaps'));
    const r = verify([bad]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/perhaps/);
  });

  it('the serve unit is hardened and keeps its database in the state directory', () => {
    const unit = readFileSync(join(DEPLOY, 'systemd', 'fleetsync.service'), 'utf8');
    for (const line of [
      'DynamicUser=yes',
      'StateDirectory=fleetsync',
      'EnvironmentFile=/etc/fleetsync/fleetsync.env',
      'Restart=on-failure',
      'RestartPreventExitStatus=2',
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'PrivateTmp=yes',
    ])
      expect(unit.split('\n'), line).toContain(line);
  });

  it("the worker unit restarts on the worker's transient exit (75: Postgres unreachable), not on a configuration error (2)", () => {
    const unit = readFileSync(join(DEPLOY, 'systemd', 'fleetsync-worker.service'), 'utf8').split('\n');
    for (const line of [
      '    /usr/bin/node /opt/fleetsync/bin/fleetsync.js worker', // ExecStart's, after its `env`
      'Restart=on-failure',
      'RestartForceExitStatus=75',
      'RestartPreventExitStatus=2',
      'StartLimitIntervalSec=0',
      'DynamicUser=yes',
      'StateDirectory=fleetsync-worker',
      'ProtectSystem=strict',
    ])
      expect(unit, line).toContain(line);
    // The exit code the unit names is the one the CLI gives a queue outage.
    expect(readFileSync(join(ROOT, 'src', 'cli.ts'), 'utf8')).toMatch(/E_QUEUE_DOWN: 75\b/);
  });

  describe("an operator's env file cannot undo what a unit needs", () => {
    // Every setting a unit makes, set otherwise, as an env file written for a host install (a copy
    // of .env.example with its commented lines taken in) or for other tuning would.
    const hostile = {
      FLEETSYNC_DB: 'data/fleet.duckdb',
      FLEETSYNC_ENV_FILE: '.env',
      FLEETSYNC_DATA_DIR: 'data',
      FLEETSYNC_LAKE_DIR: '/srv/lake',
      MALLOC_ARENA_MAX: '8',
      GLIBC_TUNABLES: 'glibc.malloc.tcache_count=0',
    };
    it('serve: its database and no .env lookup; glibc as the operator has it (not tuned for serving)', () => {
      for (const envFile of [{}, hostile])
        expect(unitProcessEnv('fleetsync.service', envFile)).toMatchObject({
          FLEETSYNC_DB: '/var/lib/fleetsync/fleet.duckdb',
          FLEETSYNC_ENV_FILE: '/dev/null',
        });
      const plain = unitProcessEnv('fleetsync.service', {});
      expect(plain.MALLOC_ARENA_MAX).toBeUndefined();
      expect(plain.GLIBC_TUNABLES).toBeUndefined();
    });

    it("sync: its database, no .env lookup and glibc's settings measured for the sync", () => {
      for (const envFile of [{}, hostile])
        expect(unitProcessEnv('fleetsync-sync.service', envFile)).toEqual(
          expect.objectContaining({
            FLEETSYNC_DB: '/var/lib/fleetsync/fleet.duckdb',
            FLEETSYNC_ENV_FILE: '/dev/null',
            ...SYNC_GLIBC,
          }),
        );
    });

    it("worker: its accounts' files and no .env lookup; the lake where the env file says, else its default", () => {
      for (const envFile of [{}, hostile])
        expect(unitProcessEnv('fleetsync-worker.service', envFile)).toMatchObject({
          FLEETSYNC_DATA_DIR: '/var/lib/fleetsync-worker',
          FLEETSYNC_ENV_FILE: '/dev/null',
        });
      expect(unitProcessEnv('fleetsync-worker.service', {}).FLEETSYNC_LAKE_DIR).toBe(
        '/var/lib/fleetsync-worker/lake',
      );
      expect(unitProcessEnv('fleetsync-worker.service', hostile).FLEETSYNC_LAKE_DIR).toBe('/srv/lake');
    });
  });
});

/**
 * glibc's malloc settings measured for a sync (docs/performance-log.md "Session 15 (`rss3`)", "Session
 * 16 (`rss4`)"): the sync unit's and the image's `sync` must both start with them.
 */
const SYNC_GLIBC = {
  MALLOC_ARENA_MAX: '1',
  GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=131072:glibc.malloc.trim_threshold=131072',
};

/**
 * The environment a unit's process starts with when the env file sets `envFile`, as systemd makes
 * it (systemd.exec(5): settings from EnvironmentFile= override those of Environment=): the unit's
 * Environment= lines, then the env file's, then its ExecStart run as written, with /usr/bin/node
 * this Node and the fleetsync entry a script that prints its environment.
 */
function unitProcessEnv(unit: string, envFile: Record<string, string>): Record<string, string> {
  const lines = readFileSync(join(DEPLOY, 'systemd', unit), 'utf8')
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .filter((l) => !l.startsWith('#'));
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
  for (const l of lines) {
    const m = /^Environment=(\w+)=(.*)$/.exec(l);
    if (m) env[m[1]!] = m[2]!;
  }
  Object.assign(env, envFile);
  const printer = join(dir, 'print-env.mjs');
  writeFileSync(printer, 'process.stdout.write(JSON.stringify(process.env));\n');
  const words = lines
    .find((l) => l.startsWith('ExecStart='))!
    .slice('ExecStart='.length)
    .trim()
    .split(/\s+/)
    .map((w) => (w === '/usr/bin/node' ? process.execPath : w.endsWith('/bin/fleetsync.js') ? printer : w));
  const r = spawnSync(words[0]!, words.slice(1), { env, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, string>;
}

/** Runs deploy/healthcheck.mjs as the container would, against `port`. */
function healthcheck(port: number, env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [join(DEPLOY, 'healthcheck.mjs')], {
      env: { PATH: process.env.PATH, FLEETSYNC_PORT: String(port), ...env },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('the container health check', () => {
  it('is healthy on 200 only, sends the token, and prints the reason of a 503', async () => {
    let answer = { status: 200, body: '{"ok":true}' };
    const seen: IncomingHttpHeaders[] = [];
    const paths: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      paths.push(req.url ?? '');
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      expect(await healthcheck(port)).toMatchObject({ code: 0 });
      expect(paths).toEqual(['/healthz']);
      expect(seen[0]!.authorization).toBeUndefined();
      expect(seen[0]!.host).toBe(`127.0.0.1:${port}`); // a loopback name: the Host allow-list lets it in

      expect(await healthcheck(port, { FLEETSYNC_TOKEN: 'a-token-of-16-chars+' })).toMatchObject({ code: 0 });
      expect(seen[1]!.authorization).toBe('Bearer a-token-of-16-chars+');

      answer = { status: 503, body: '{"ok":false,"reason":"the last run failed"}' };
      const sick = await healthcheck(port);
      expect(sick.code).toBe(1);
      expect(sick.out).toContain('HTTP 503');
      expect(sick.out).toContain('the last run failed');
    } finally {
      await new Promise((r) => server.close(r));
    }
    // Nothing listening: unhealthy, not a hang.
    const down = await healthcheck(port);
    expect(down.code).toBe(1);
    expect(down.out).toMatch(/unhealthy/);
  }, 30_000);
});

describe('the container image', () => {
  it('every package src/ imports is a production dependency (npm ci --omit=dev is enough)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const files = (d: string): string[] =>
      readdirSync(d, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(d, e.name)) : e.name.endsWith('.ts') ? [join(d, e.name)] : [],
      );
    const used = new Set<string>();
    for (const f of [...files(join(ROOT, 'src')), join(ROOT, 'bin', 'fleetsync.js')]) {
      const text = readFileSync(f, 'utf8');
      // Static imports (not `import type`) and dynamic imports of bare specifiers.
      for (const m of text.matchAll(
        /^import (?!type )[^;]*?from '([^'.][^']*)'|import\('([^'.][^']*)'\)/gms,
      )) {
        const spec = m[1] ?? m[2]!;
        if (spec.startsWith('node:')) continue;
        used.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    expect(used.size).toBeGreaterThan(5);
    const missing = [...used].filter((p) => !(p in pkg.dependencies));
    expect(missing, 'imported by src/ but only a devDependency or not declared').toEqual([]);
    expect(pkg.dependencies.tsx, 'tsx runs the sources when src/ differs from the build').toBeDefined();
    expect(pkg.dependencies.esbuild, 'esbuild builds dist/ in production (the Dockerfile)').toBeDefined();
  });

  it("the image's layout (the Dockerfile's COPY lines), entry point and settings serve the dashboard", async () => {
    const dockerfile = readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:20[-\w.]*$/m);
    expect(dockerfile).toMatch(/^RUN npm ci --omit=dev/m);
    expect(dockerfile).toMatch(/^USER (?!root)\w+$/m);
    expect(dockerfile).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(dockerfile).toMatch(
      /^HEALTHCHECK .*CMD \["env", "FLEETSYNC_PORT=8080", "node", "deploy\/healthcheck\.mjs"\]$/m,
    );

    // The image's /app: exactly what the COPY lines bring (relative to the build context, the root).
    const app = join(dir, 'app');
    mkdirSync(app);
    for (const m of dockerfile.matchAll(/^COPY (.+)$/gm)) {
      const parts = m[1]!.trim().split(/\s+/);
      const dest = parts.pop()!;
      for (const src of parts) {
        const target = dest.endsWith('/') ? join(app, dest, src.split('/').pop()!) : join(app, dest);
        cpSync(join(ROOT, src), target, { recursive: true });
      }
    }
    symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'));
    // The image's build (RUN npm run …): the entry runs dist/, not the sources through tsx.
    const builds = [...dockerfile.matchAll(/^RUN (npm run .+)$/gm)].map((m) => m[1]!);
    expect(builds).toEqual(['npm run -s build']);
    for (const b of builds) {
      const built = spawnSync('sh', ['-c', b], { cwd: app, encoding: 'utf8' });
      expect(built.status, built.stderr).toBe(0);
    }
    const entry = JSON.parse(/^ENTRYPOINT (.+)$/m.exec(dockerfile)![1]!) as string[];
    const cmd = JSON.parse(/^CMD (.+)$/m.exec(dockerfile)![1]!) as string[];
    expect(entry).toEqual(['/bin/sh', 'deploy/entry.sh']);
    // what the entry runs (it sets the image's database, which is not this test's: see below)
    const script = readFileSync(join(app, 'deploy', 'entry.sh'), 'utf8');
    const node = /^exec node (.+) "\$@"$/m.exec(script)![1]!.split(' ');
    // The image's ENV lines (a continued ENV block), with the database moved into this test's dir.
    const envBlock = /^ENV FLEETSYNC_DB=(?:[^\n\\]|\\\n)*/m.exec(dockerfile)![0];
    const env = Object.fromEntries(
      [...envBlock.replace(/^ENV /, '').matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]),
    );
    expect(env).toMatchObject({ FLEETSYNC_HOST: '0.0.0.0', FLEETSYNC_PORT: '8080' });
    const child = spawn(process.execPath, [...node, ...cmd], {
      cwd: app,
      env: {
        PATH: process.env.PATH,
        ...env,
        FLEETSYNC_DB: join(dir, 'data', 'fleet.duckdb'),
        FLEETSYNC_PORT: '0',
        FLEETSYNC_TOKEN: 'container-token-0123456789',
      },
    });
    mkdirSync(join(dir, 'data'));
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    try {
      const port = await new Promise<string>((resolve, reject) => {
        const t = setInterval(() => {
          const m = /fleetsync dashboard: http:\/\/[^:]+:(\d+)\//.exec(out);
          if (m) resolve(m[1]!);
        }, 50);
        child.on('close', () => {
          clearInterval(t);
          reject(new Error(`serve exited:\n${out}`));
        });
      });
      const res = await fetch(`http://127.0.0.1:${port}/api/status`, {
        headers: { authorization: 'Bearer container-token-0123456789' },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { zone: string }).zone).toBeTruthy();
      const page = await fetch(`http://127.0.0.1:${port}/`);
      expect(page.status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/vendor/chart.umd.min.js`)).status).toBe(200);
      expect(out).not.toMatch(/through tsx/);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('close', r));
    }
  }, 60_000);

  it("the entry gives every command the image's settings and a sync glibc's, whatever the env file says", () => {
    // `node` on the PATH prints what it was started with
    const bin = join(dir, 'entry-bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(
      join(bin, 'node'),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} -e 'process.stdout.write(JSON.stringify({ argv: process.argv.slice(1), env: process.env }))' -- "$@"\n`,
      { mode: 0o755 },
    );
    const envFile = {
      FLEETSYNC_DB: 'data/fleet.duckdb',
      FLEETSYNC_HOST: '127.0.0.1',
      FLEETSYNC_PORT: '3000',
      FLEETSYNC_ENV_FILE: '.env',
      MALLOC_ARENA_MAX: '8',
    };
    const run = (...args: string[]) => {
      const r = spawnSync('/bin/sh', [join(DEPLOY, 'entry.sh'), ...args], {
        env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, ...envFile },
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { argv: string[]; env: Record<string, string> };
    };
    const image = {
      FLEETSYNC_DB: '/data/fleet.duckdb',
      FLEETSYNC_HOST: '0.0.0.0',
      FLEETSYNC_PORT: '8080',
      FLEETSYNC_ENV_FILE: '/dev/null',
    };
    const serve = run('serve');
    expect(serve.argv).toEqual(['bin/fleetsync.js', 'serve']);
    expect(serve.env).toMatchObject({ ...image, MALLOC_ARENA_MAX: '8' }); // glibc as the operator has it
    const sync = run('sync', '--from', '2026-01-01');
    expect(sync.argv).toEqual(['bin/fleetsync.js', 'sync', '--from', '2026-01-01']);
    expect(sync.env).toMatchObject({ ...image, ...SYNC_GLIBC }); // the sync unit's settings
  });
});
