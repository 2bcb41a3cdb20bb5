/**
 * The streams' declared endpoints are the endpoints the sync calls — the change watch protects
 * exactly those (it used to keep a hand-made copy of them). Every request of a full sync, over
 * both fuel-counter paths and both fills paths, is recorded on the wire and matched against the declarations.
 */
import { join } from 'node:path';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFleetClient } from '../../src/api/client.ts';
import { SYNC_ENDPOINTS } from '../../src/changes/endpoints.ts';
import { openDatabase } from '../../src/store/db.ts';
import { runSync } from '../../src/sync/run.ts';
import { BUILTIN_STREAMS } from '../../src/sync/streams/index.ts';
import { startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
const seen = new Set<string>();
let agent: Agent;

beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 6, days: 20 } });
  agent = new Agent();
}, 60_000);
afterAll(async () => {
  await agent?.close();
  await h?.close();
});

/** `GET /vehicles/{registration}/odometer` → a pattern for `GET /vehicles/ABC%20123/odometer`. */
const pattern = (endpoint: string) => {
  const [method, path] = endpoint.split(' ');
  const segs = path!
    .split('/')
    .map((s) => (/^\{.*\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^$()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${method} ${segs.join('/')}$`);
};

async function syncRecording(
  name: string,
  fuelPath: 'per_vehicle_get' | 'bulk_post',
  fillsPath: 'per_vehicle' | 'fleet_day',
) {
  const recorder: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
    const path = String(opts.path)
      .split('?')[0]!
      .replace(/^\/rest/, '');
    seen.add(`${opts.method} ${path}`);
    return dispatch(opts, handler);
  };
  const client = createFleetClient({
    now: Date.now,
    baseUrl: h.sim.baseUrl,
    username: 'demo',
    password: 'demo-main',
    timezone: h.fleet.timezone,
    windowMs: 1000,
    dispatcher: agent.compose(recorder),
  });
  const db = await openDatabase(join(h.dir, `${name}.duckdb`));
  try {
    return await runSync(
      { ...h.deps, db, client, fuelPath, fillsPath },
      { trigger: 'cli', fromDay: h.firstDay, toDay: h.lastDay },
    );
  } finally {
    db.close();
  }
}

describe('declared endpoints', () => {
  it('are exactly the endpoints a full sync sends requests to', async () => {
    expect((await syncRecording('get', 'per_vehicle_get', 'per_vehicle')).outcome).toBe('ok');
    expect((await syncRecording('post', 'bulk_post', 'fleet_day')).outcome).toBe('ok');
    const declared = BUILTIN_STREAMS.flatMap((d) => d.endpoints);
    const undeclared = [...seen].filter((r) => !declared.some((e) => pattern(e).test(r)));
    expect(undeclared).toEqual([]);
    const unused = declared.filter((e) => ![...seen].some((r) => pattern(e).test(r)));
    expect(unused).toEqual([]);
    expect([...SYNC_ENDPOINTS].sort()).toEqual([...declared].sort());
  });
});
