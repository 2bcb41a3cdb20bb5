/**
 * DNS rebinding: a tokenless loopback server answers only the names it is known by. Every route
 * of the running app — enumerated from its Express router, not a hand list, so a route added
 * later is covered — answers `Host: evil.example` with 403 and a short text, and still answers
 * the loopback names.
 */
import { request } from 'node:http';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { DASHBOARD_DIR } from '../../src/server/app.ts';
import { allowedHostEntries, hostAllowed } from '../../src/server/hosts.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { NOW, openFixture, type FixtureDb } from '../helpers/report-fixture.ts';

let fx: FixtureDb;
let srv: RunningServer;
const config = (env: Record<string, string> = {}) =>
  loadConfig({ FLEETSYNC_ACCOUNT: 'acme', FLEET_TIMEZONE: 'UTC', FLEETSYNC_PORT: '0', ...env });

beforeAll(async () => {
  fx = await openFixture();
  srv = await startServer({ db: fx.db, config: config(), log: silentLogger, now: () => NOW });
});
afterAll(async () => {
  await srv?.close();
  fx?.close();
});

interface Probe {
  method: string;
  path: string;
}

/** Values for route parameters; a route with a parameter not listed here fails the test. */
const SAMPLES: Record<string, string[]> = { file: ['mileage', 'runs.csv'] };

interface Layer {
  name: string;
  rawPath?: string;
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
}

function expand(path: string): string[] {
  const m = /:([A-Za-z_]+)/.exec(path);
  if (!m) return [path];
  const values = SAMPLES[m[1]!];
  if (!values) throw new Error(`no sample value for the route parameter :${m[1]} of ${path}`);
  return values.flatMap((v) => expand(path.replace(m[0], v)));
}

function staticFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? staticFiles(p) : [`/${relative(DASHBOARD_DIR, p)}`];
  });
}

/** Every route of the app: routes, mounted routers, static files, and each mount's fallback. */
function probesOf(app: Express): Probe[] {
  const out: Probe[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      const mount = layer.rawPath && layer.rawPath !== '/' ? layer.rawPath : '';
      if (layer.route) {
        for (const method of Object.keys(layer.route.methods))
          for (const path of expand(prefix + layer.route.path))
            out.push({ method: method.toUpperCase(), path });
      } else if (layer.name === 'router' && layer.handle.stack) {
        walk(layer.handle.stack, prefix + mount);
      } else if (layer.name === 'serveStatic') {
        out.push({ method: 'GET', path: `${prefix}/` });
        for (const f of staticFiles(DASHBOARD_DIR)) out.push({ method: 'GET', path: prefix + f });
      } else if (mount) {
        out.push({ method: 'GET', path: `${prefix}${mount}/no-such-route` });
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return out;
}

function send(probe: Probe, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: srv.port,
        method: probe.method,
        path: probe.path,
        headers: { Host: host, 'X-Fleetsync-Request': '1' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('Host allow-list (DNS rebinding)', () => {
  it('every route of a tokenless loopback server refuses a foreign Host and answers the loopback names', async () => {
    const app = srv.server.listeners('request')[0] as unknown as Express;
    const probes = probesOf(app);
    // The enumeration found the app's real routes (a sanity floor, not the list itself).
    const paths = probes.map((p) => `${p.method} ${p.path}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'GET /api/status',
        'POST /api/sync',
        'GET /api/reports/runs.csv',
        'GET /vendor/chart.umd.min.js',
        'GET /index.html',
      ]),
    );
    for (const probe of probes) {
      const what = `${probe.method} ${probe.path}`;
      for (const evil of ['evil.example', `evil.example:${srv.port}`, `localhost.evil.example:${srv.port}`]) {
        const r = await send(probe, evil);
        expect(r.status, `${what} with Host ${evil}`).toBe(403);
        expect(r.body, what).toMatch(/does not answer for that host name/);
        expect(r.body.length, what).toBeLessThan(300);
      }
      for (const good of [
        `localhost:${srv.port}`,
        `127.0.0.1:${srv.port}`,
        `[::1]:${srv.port}`,
        'LOCALHOST',
      ]) {
        const r = await send(probe, good);
        expect(r.status, `${what} with Host ${good}`).not.toBe(403);
      }
    }
    // The downloads and the data behind them reach a loopback client.
    const csv = await send({ method: 'GET', path: '/api/reports/runs.csv' }, `localhost:${srv.port}`);
    expect(csv.status).toBe(200);
    expect(csv.body).toContain('run_id');
  }, 60_000);

  it('the bound address and FLEETSYNC_ALLOWED_HOSTS are added; wildcards are not', () => {
    const entries = (env: Record<string, string>) => allowedHostEntries(config(env));
    const bound = entries({ FLEETSYNC_HOST: '10.1.2.3', FLEETSYNC_TOKEN: 'x'.repeat(16) });
    expect(hostAllowed('10.1.2.3:8080', bound)).toBe(true);
    expect(hostAllowed('evil.example:8080', bound)).toBe(false);
    const any = entries({ FLEETSYNC_HOST: '0.0.0.0', FLEETSYNC_TOKEN: 'x'.repeat(16) });
    expect(hostAllowed('0.0.0.0:8080', any)).toBe(false);
    expect(hostAllowed('localhost:8080', any)).toBe(true);
    const listed = entries({ FLEETSYNC_ALLOWED_HOSTS: 'Fleet.Example.com, reports.example.com:8443' });
    expect(hostAllowed('fleet.example.com', listed)).toBe(true);
    expect(hostAllowed('fleet.example.com:8080', listed)).toBe(true);
    expect(hostAllowed('reports.example.com:8443', listed)).toBe(true);
    expect(hostAllowed('reports.example.com:8080', listed)).toBe(false);
    expect(hostAllowed(undefined, listed)).toBe(false);
    expect(hostAllowed('::1', listed)).toBe(false);
    expect(() => config({ FLEETSYNC_ALLOWED_HOSTS: 'https://fleet.example.com/' })).toThrow(
      /FLEETSYNC_ALLOWED_HOSTS: a comma-separated list of host names/,
    );
  });
});
