/**
 * /healthz and /metrics follow the API's token rules. On a loopback server both are open. A
 * server bound beyond loopback needs the bearer token for /metrics; its /healthz stays open to a
 * client on the loopback interface (a container's own health check) and needs the token from
 * anywhere else (checked over the machine's own non-loopback address, where it has one).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { startServer } from '../../src/server/start.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { parsePrometheus } from '../helpers/receivers.ts';

const TOKEN = 'a-long-enough-secret-token';
let dir: string;
let db: Database;
const external = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && !i.internal && i.family === 'IPv4')?.address;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-health-'));
  db = await openDatabase(join(dir, 'h.duckdb'));
});
afterAll(() => {
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('health and metrics access', () => {
  it('are open on a loopback server; a fresh database is healthy and its metrics parse', async () => {
    const s = await startServer({ now: Date.now, db, config: loadConfig({}), log: silentLogger, port: 0 });
    try {
      const h = await fetch(new URL('/healthz', s.url));
      expect(h.status).toBe(200);
      expect(await h.json()).toMatchObject({
        status: 'ok',
        reasons: [],
        checks: { database: 'ok', accounts: [] },
      });
      const m = await fetch(new URL('/metrics', s.url));
      expect(m.status).toBe(200);
      expect(m.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const { samples } = parsePrometheus(await m.text());
      // Nothing synced: no run counters and no freshness (unknown is not zero).
      expect(samples.filter((x) => x.name === 'fleetsync_data_freshness_seconds')).toEqual([]);
      expect(samples.find((x) => x.name === 'fleetsync_sync_running')?.value).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('beyond loopback: /metrics needs the token; /healthz is open to loopback peers only', async () => {
    const s = await startServer({
      now: Date.now,
      db,
      config: loadConfig({
        FLEETSYNC_HOST: '0.0.0.0',
        FLEETSYNC_TOKEN: TOKEN,
        ...(external ? { FLEETSYNC_ALLOWED_HOSTS: external } : {}),
      }),
      log: silentLogger,
      port: 0,
    });
    const local = (p: string) => `http://127.0.0.1:${s.port}${p}`;
    const auth = { Authorization: `Bearer ${TOKEN}` };
    try {
      expect((await fetch(local('/metrics'))).status).toBe(401);
      expect(
        (await fetch(local('/metrics'), { headers: { Authorization: 'Bearer wrong-token-of-length' } }))
          .status,
      ).toBe(401);
      expect((await fetch(local('/metrics'), { headers: auth })).status).toBe(200);
      expect((await fetch(local('/healthz'))).status).toBe(200);
      if (external) {
        const remote = (p: string) => `http://${external}:${s.port}${p}`;
        expect((await fetch(remote('/healthz'))).status).toBe(401);
        expect((await fetch(remote('/healthz'), { headers: auth })).status).toBe(200);
        expect((await fetch(remote('/metrics'))).status).toBe(401);
      } else console.warn('no non-loopback IPv4 address here: the remote /healthz case is not checked');
    } finally {
      await s.close();
    }
  });
});
