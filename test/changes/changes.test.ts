import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkApiChanges, listFlaggedChanges, type ChangeCheck } from '../../src/changes/check.ts';
import { SYNC_ENDPOINTS, sameEndpoint, syncEndpointsIn } from '../../src/changes/endpoints.ts';
import { DEFAULT_CHANGELOG_URL, changelogUrlFor } from '../../src/changes/url.ts';
import { changesCommand } from '../../src/commands/changes.ts';
import { memoryLogger } from '../../src/log.ts';
import { DEFAULT_RELEASES, type Release } from '../../src/simulator/changelog.ts';
import { generateFleet } from '../../src/simulator/generate.ts';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';

/** An Agent that counts the requests it sends. */
class CountingAgent extends Agent {
  count = 0;
  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    this.count++;
    return super.dispatch(opts, handler);
  }
}

const fleet = generateFleet({
  seed: 3,
  vehicles: 2,
  days: 5,
  timezone: 'Australia/Sydney',
  endDay: '2026-08-30',
});
let clock = Date.parse('2026-09-01T00:00:00Z');
let sim: SimulatorHandle;
let dir: string;
let db: Database;
const agent = new CountingAgent();
const log = memoryLogger();

beforeAll(async () => {
  sim = await startSimulator({ fleet, now: () => clock });
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-changes-'));
  db = await openDatabase(join(dir, 'fleet.duckdb'));
});
afterAll(async () => {
  db.close();
  await sim.close();
  await agent.close();
  rmSync(dir, { recursive: true, force: true });
});

const check = (extra: { feedUrl?: string } = {}) =>
  checkApiChanges({ db, baseUrl: sim.baseUrl, dispatcher: agent, log, now: () => clock, ...extra });

async function count(sql: string): Promise<number> {
  const con = await db.connect();
  try {
    const rows = (await con.runAndReadAll(sql)).getRowObjectsJS();
    return Number(rows[0]!.n);
  } finally {
    con.closeSync();
  }
}

const breakingRelease: Release = {
  version: '1.26.0915.1',
  date: '2026-09-15',
  notes: [
    {
      section: 'Breaking Changes',
      text: 'Trips are paginated by cursor; `page` is ignored.',
      endpoints: ['GET /rest/trips'],
    },
    {
      section: 'Breaking Changes',
      text: 'Odometer answers in kilometres.',
      endpoints: ['GET /vehicles/{reg}/odometer'],
    },
    {
      section: 'Breaking Changes',
      text: 'Vision clip requests need `channels`.',
      endpoints: ['POST /vision/videos/requests'],
    },
    { section: 'New Features', text: 'Trips carry `fuel_used`.', endpoints: ['GET /trips'] },
  ],
};

describe('endpoint matching', () => {
  it('matches templates whatever the parameter is called, with or without /rest', () => {
    expect(sameEndpoint('GET /vehicles/{reg}/odometer', 'GET /vehicles/{registration}/odometer')).toBe(true);
    expect(sameEndpoint('GET /rest/trips/', 'GET /trips')).toBe(true);
    expect(sameEndpoint('https://fleetapi-za.cartrack.com/rest/geofences?x=1', 'GET /geofences')).toBe(true);
    expect(sameEndpoint('POST /fuel/consumed', 'GET /fuel/consumed/{registration}')).toBe(false);
    expect(sameEndpoint('GET /trips/{registration}', 'GET /trips')).toBe(false);
    expect(sameEndpoint('PUT /trips', 'GET /trips')).toBe(false);
    expect(syncEndpointsIn(['GET /rest/fuel/fills/:reg', 'GET /vision/status'])).toEqual([
      'GET /fuel/fills/{registration}',
    ]);
    expect(SYNC_ENDPOINTS).toHaveLength(17); // with activity, drivers, the fuel level series, EV energy and all-vehicle fills
  });

  it('puts the feed beside /rest for a simulator, on the docs site for the real service, or the override', () => {
    expect(changelogUrlFor('http://127.0.0.1:4010/rest')).toBe(
      'http://127.0.0.1:4010/changelog/records.json',
    );
    expect(changelogUrlFor('https://fleetapi-ke.karooooo.com/rest')).toBe(DEFAULT_CHANGELOG_URL);
    expect(changelogUrlFor('https://fleetapi-za.cartrack.com/rest', 'https://mirror/records.json')).toBe(
      'https://mirror/records.json',
    );
  });
});

describe('checkApiChanges against the simulator', () => {
  let first: ChangeCheck;

  it('stores the feed on the first check; records keep the kind their section gives', async () => {
    first = await check();
    expect(first.status).toBe('updated');
    expect(first.source).toBe(`${sim.url}/changelog/records.json`);
    expect(first.newReleases).toHaveLength(20);
    expect(first.flagged).toEqual([]); // nothing in the published history touches the sync
    expect(agent.count).toBe(1);
    expect(await count('SELECT count(*) AS n FROM api_releases')).toBe(20);
    const kinds = await count(`SELECT count(*) AS n FROM api_change_records WHERE NOT (
      (kind = 'deprecation') OR
      (section = 'New Features' AND kind = 'feature') OR (section = 'Improvements' AND kind = 'improvement') OR
      (section = 'Bug Fixes' AND kind = 'fix') OR (section = 'Breaking Changes' AND kind = 'breaking'))`);
    expect(kinds).toBe(0);
    expect(
      await count(
        `SELECT count(*) AS n FROM api_change_records WHERE kind = 'deprecation' AND text LIKE '%immobilise%'`,
      ),
    ).toBe(1);
  });

  it('sends a conditional request next: 304, nothing stored, one request', async () => {
    const before = await count('SELECT count(*) AS n FROM api_change_records');
    const stateBefore = await count(`SELECT epoch_ms(checked_at) AS n FROM api_feed_state`);
    clock += 60_000;
    const again = await check();
    expect(again).toMatchObject({ status: 'unchanged', newReleases: [], flagged: [] });
    expect(agent.count).toBe(2);
    expect(await count('SELECT count(*) AS n FROM api_change_records')).toBe(before);
    expect(await count(`SELECT epoch_ms(checked_at) AS n FROM api_feed_state`)).toBe(stateBefore);
  });

  it('flags a breaking release touching GET /trips published mid-test; a breaking change elsewhere is stored, not flagged', async () => {
    clock += 60_000;
    sim.setReleases([...DEFAULT_RELEASES, breakingRelease]);
    const r = await check();
    expect(agent.count).toBe(3);
    expect(r.status).toBe('updated');
    expect(r.newReleases.map((x) => x.version)).toEqual(['1.26.0915.1']);
    expect(r.flagged.map((f) => [f.kind, f.syncEndpoints])).toEqual([
      ['breaking', ['GET /trips']],
      ['breaking', ['GET /vehicles/{registration}/odometer']],
    ]);
    expect(await count(`SELECT count(*) AS n FROM api_change_records WHERE version = '1.26.0915.1'`)).toBe(4);
    expect(
      await count(
        `SELECT count(*) AS n FROM api_change_records WHERE text LIKE 'Vision%' AND breaking AND NOT affects_sync`,
      ),
    ).toBe(1);
    expect(
      await count(
        `SELECT count(*) AS n FROM api_change_records WHERE text LIKE '%fuel_used%' AND NOT affects_sync`,
      ),
    ).toBe(1);
    const con = await db.connect();
    try {
      const flags = await listFlaggedChanges(con);
      expect(flags.map((f) => f.syncEndpoints[0])).toEqual([
        'GET /trips',
        'GET /vehicles/{registration}/odometer',
      ]);
    } finally {
      con.closeSync();
    }
    // And the next check is a 304 again.
    expect((await check()).status).toBe('unchanged');
  });

  it('never throws when the feed cannot be read', async () => {
    const r = await check({ feedUrl: 'http://127.0.0.1:9/changelog/records.json' });
    expect(r.status).toBe('error');
    expect(r).toMatchObject({ reason: expect.stringMatching(/E_NETWORK/) });
    const notJson = await check({ feedUrl: `${sim.url}/__sim/stats` });
    expect(notJson.status).toBe('error');
  });
});

describe('fleetsync changes', () => {
  it('prints flagged records and exits 3 until they are acknowledged', async () => {
    const cdir = mkdtempSync(join(tmpdir(), 'fleetsync-changes-cli-'));
    const out: string[] = [];
    const run = (argv: Record<string, string | boolean | undefined>) =>
      changesCommand.run(
        { values: argv, positionals: [] },
        {
          now: Date.now,
          argv: [],
          env: {
            FLEET_BASE_URL: sim.baseUrl,
            FLEETSYNC_DB: join(cdir, 'f.duckdb'),
            FLEETSYNC_LOG_LEVEL: 'error',
          },
          stdout: (s) => out.push(s),
          stderr: (s) => out.push(s),
          stopSignal: new AbortController().signal,
        },
      );
    try {
      expect(await run({})).toBe(3);
      expect(out.join('')).toMatch(/new release v1\.26\.0915\.1/);
      expect(out.join('')).toMatch(/! v1\.26\.0915\.1 .*GET \/trips: Trips are paginated/);
      out.length = 0;
      expect(await run({})).toBe(3); // a 304, but the flag is still open
      expect(await run({ ack: true })).toBe(0);
      expect(await run({})).toBe(0);
      expect(out.join('')).toMatch(/no open change affects the sync/);
    } finally {
      rmSync(cdir, { recursive: true, force: true });
    }
  });
});
