/**
 * A `#` in a secret written unquoted in `.env`, end to end through the real CLI: the dashboard's
 * token and the API password are read whole. (Node's loader cut both at the `#`: the server then
 * accepted the shorter token, and the API refused the shorter password as "check credentials".)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFleet } from '../../src/simulator/generate.ts';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.ts';
import { addDays, localDate } from '../../src/time.ts';
import { runCli, spawnCli } from '../helpers/cli-process.ts';

const ZONE = 'Europe/London';
const TOKEN = 'fleet-dashboard-#9f2c1e7a44b0d3';
const PASSWORD = 'Heron#42-blue';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-envhash-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('.env with # in a value', () => {
  it('the server accepts exactly the full token, not the part before the #', async () => {
    const envFile = join(dir, 'serve.env');
    writeFileSync(
      envFile,
      [
        '# the dashboard, reachable from the network',
        'FLEETSYNC_HOST=0.0.0.0',
        'FLEETSYNC_PORT=0',
        `FLEETSYNC_TOKEN=${TOKEN}`,
        `FLEETSYNC_DB=${join(dir, 'serve.duckdb')}`,
      ].join('\n') + '\n',
    );
    const serve = spawnCli(['serve'], { FLEETSYNC_ENV_FILE: envFile });
    try {
      const line = await serve.waitFor(/fleetsync dashboard: http/);
      const port = /:(\d+)/.exec(line.replace(/^.*http:\/\//, ''))![1];
      const get = (token: string) =>
        fetch(`http://127.0.0.1:${port}/api/status`, { headers: { authorization: `Bearer ${token}` } });
      expect((await get(TOKEN)).status).toBe(200);
      expect((await get('fleet-dashboard-')).status).toBe(401);
      expect((await get(TOKEN.slice(0, -1))).status).toBe(401);
    } finally {
      serve.child.kill('SIGTERM');
      expect((await serve.exited).code).toBe(0);
    }
  }, 30_000);

  it('the API accepts the full password: the sync logs in and completes', async () => {
    const today = localDate(Date.now(), ZONE);
    const fleet = generateFleet({
      seed: 5,
      vehicles: 2,
      days: 3,
      timezone: ZONE,
      endDay: addDays(today, -10),
    });
    let sim: SimulatorHandle | undefined;
    try {
      sim = await startSimulator({
        fleet,
        windowMs: 1000,
        credentials: { username: 'ops', mainPassword: PASSWORD, subPassword: 'sub-not-used' },
      });
      const envFile = join(dir, 'sync.env');
      writeFileSync(
        envFile,
        [
          `FLEET_BASE_URL=${sim.baseUrl}`,
          'FLEET_USERNAME=ops',
          `FLEET_PASSWORD=${PASSWORD}`,
          `FLEET_TIMEZONE=${ZONE}`,
          'FLEETSYNC_RATE_WINDOW_MS=1000',
          `FLEETSYNC_DB=${join(dir, 'sync.duckdb')}`,
        ].join('\n') + '\n',
      );
      const range = ['--from', localDate(fleet.startMs, ZONE), '--to', localDate(fleet.endMs - 1, ZONE)];
      const r = await runCli(['sync', ...range], { FLEETSYNC_ENV_FILE: envFile });
      expect(r.code, r.stderr).toBe(0);
      expect(sim.stats().unauthorized).toBe(0);
      expect(sim.stats().total).toBeGreaterThan(0);
    } finally {
      await sim?.close();
    }
  }, 60_000);
});
