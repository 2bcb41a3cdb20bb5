/**
 * Each sync reads the API's release notes: a breaking release that touches an endpoint the sync
 * uses shows in the run summary, in the runs table and on the dashboard's /api/changes; a 304 on
 * the next run costs nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/log.ts';
import { startServer } from '../../src/server/start.ts';
import { DEFAULT_RELEASES } from '../../src/simulator/changelog.ts';
import { loadConfig } from '../../src/config.ts';
import { startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 6, days: 20 } });
}, 60_000);
afterAll(() => h?.close());

describe('API change watch during a sync', () => {
  it('stores the release notes on the first run and flags nothing the sync uses', async () => {
    const s = await h.sync();
    expect(s.outcome).toBe('ok');
    expect(s.apiChanges).toMatchObject({ status: 'updated', flagged: [] });
    expect(s.apiChanges!.newReleases).toBeGreaterThan(0);
  });

  it('flags a breaking release to GET /trips, in the summary, the runs table and the dashboard API', async () => {
    h.sim.setReleases([
      ...DEFAULT_RELEASES,
      {
        version: '1.26.1120.1',
        date: '2026-11-20',
        notes: [
          {
            section: 'Breaking Changes',
            text: '`GET /trips` now requires `filter[vehicle_id]`.',
            endpoints: ['GET /trips'],
            area: 'Trips',
          },
        ],
      },
    ]);
    const s = await h.sync();
    expect(s.outcome).toBe('ok');
    expect(s.apiChanges?.status).toBe('updated');
    expect(s.apiChanges?.flagged).toEqual([
      expect.objectContaining({ version: '1.26.1120.1', kind: 'breaking', endpoints: ['GET /trips'] }),
    ]);
    const con = await h.db.connect();
    const note = (
      await con.runAndReadAll('SELECT notes FROM runs WHERE run_id = $1', [s.run_id])
    ).getRowObjectsJS()[0]!.notes;
    con.closeSync();
    expect(String(note)).toContain('1.26.1120.1 breaking GET /trips');

    const server = await startServer({
      now: Date.now,
      db: h.db,
      config: loadConfig({}),
      log: silentLogger,
      port: 0,
    });
    try {
      const res = (await (await fetch(new URL('/api/changes', server.url))).json()) as {
        flagged: { version: string }[];
      };
      expect(res.flagged.map((f) => f.version)).toEqual(['1.26.1120.1']);
      const ack = await fetch(new URL('/api/changes/ack', server.url), {
        method: 'POST',
        headers: { 'X-Fleetsync-Request': '1' },
      });
      expect(((await ack.json()) as { flagged: unknown[] }).flagged).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('reads nothing new on the next run (a conditional request answered 304)', async () => {
    const s = await h.sync();
    expect(s.apiChanges).toMatchObject({ status: 'unchanged', newReleases: 0, flagged: [] });
  });
});
