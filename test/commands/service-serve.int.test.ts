/**
 * `fleetsync service done` beside a running `serve` (a child process holding the database, which
 * no other process may open): the command asks that server (POST /api/service/done), which records
 * the service; a bad value is refused by the server with exit 2 naming it (a reading far from the
 * synced odometer with `forcible` in the 400, and `--force` records it); the route refuses a
 * call without the X-Fleetsync-Request header (a cross-site form). After the server stops, the
 * file holds the one service recorded.
 */
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.ts';
import { runMain } from '../helpers/cli.ts';
import { spawnCli, type SpawnedCli } from '../helpers/cli-process.ts';
import { queryDb } from '../helpers/synced.ts';
import { DONE_BOTH, DONE_BOTH_LINE, openServiceFixture } from '../service/fixture.ts';

let dir: string;
let env: Record<string, string>;
let serve: SpawnedCli;
let base: string;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

beforeAll(async () => {
  const fx = await openServiceFixture();
  fx.con.closeSync();
  fx.db.close();
  dir = fx.dir;
  const port = await freePort();
  env = { FLEETSYNC_DB: join(dir, 'fleet.duckdb'), FLEETSYNC_PORT: String(port) };
  serve = spawnCli(['serve'], env);
  base = (await serve.waitFor(/fleetsync dashboard: http/)).match(/http:\/\/[^ ]+/)![0].replace(/\/$/, '');
}, 60_000);
afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  rmSync(dir, { recursive: true, force: true });
});

describe('fleetsync service done while serve holds the database', () => {
  it('is recorded by the running server; a bad value is refused there; the route needs its header', async () => {
    const out = await runMain(env, ...DONE_BOTH);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(DONE_BOTH_LINE);
    expect(out.stdout).toContain('(by the running server)');

    const bad = await runMain(
      env,
      'service',
      'done',
      '--vehicle',
      'GHOST',
      '--date',
      '2026-07-18',
      '--odometer',
      '1',
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown vehicle "GHOST"');

    // a reading far from the synced odometer (KM: 53,000 km on 1 July): refused naming it, forcible
    const typo = ['service', 'done', '--vehicle', 'KM', '--date', '2026-07-05', '--odometer', '12345'];
    const far = await runMain(env, ...typo);
    expect(far.code).toBe(2);
    expect(far.stderr).toContain('far below the 53,000 km its synced odometer read at 2026-07-01 00:00');
    const answer = await fetch(`${base}/api/service/done`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-fleetsync-request': '1' },
      body: JSON.stringify({ vehicle: 'KM', date: '2026-07-05', odometer: 12345 }),
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: 'E_BAD_REQUEST', forcible: true });
    const forced = await runMain(env, ...typo, '--force');
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('note: recorded with force although the reading 12345 is far below');
    expect(forced.stdout).toContain('(by the running server)');

    const forged = await fetch(`${base}/api/service/done`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ vehicle: 'KM', date: '2026-07-18', odometer: 1 }),
    });
    expect(forged.status).toBe(403);

    serve.child.kill('SIGTERM');
    await serve.exited;
    const db = await openDatabase(env.FLEETSYNC_DB!);
    try {
      expect(
        await queryDb(
          db,
          "SELECT vehicle_id, service_day::VARCHAR AS day, odometer_km FROM service_records WHERE source = 'cli' ORDER BY recorded_at",
        ),
      ).toEqual([
        { vehicle_id: 3n, day: '2026-07-18', odometer_km: 101300 },
        { vehicle_id: 1n, day: '2026-07-05', odometer_km: 12345 },
      ]);
    } finally {
      db.close();
    }
  });
});
