import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enc, startTestSim, type TestSim } from '../helpers/simulator-harness.ts';

let t: TestSim;
beforeAll(async () => {
  t = await startTestSim();
});
afterAll(() => t.sim.close());

const clip = (registration: string) => ({
  registration,
  start_timestamp: '2026-04-19 10:00:00',
  end_timestamp: '2026-04-19 10:02:59',
});

describe('vision', () => {
  it('lists camera status for the fleet (subuser: granted vehicles only)', async () => {
    const r = await t.get('/vision/status');
    expect(r.status).toBe(200);
    const rows = r.json().data;
    expect(rows).toHaveLength(t.fleet.vehicles.length);
    expect(rows.filter((x) => x.has_camera).map((x) => x.vehicle_id)).toEqual([1001, 1004]);
    const sub = (await t.get('/vision/status', undefined, 'sub')).json().data;
    expect(sub.map((x) => x.vehicle_id)).not.toContain(1004); // Executive: not granted to the subuser
  });

  it('answers 404, not 422, for an unknown or inaccessible registration on every POST', async () => {
    const cam = t.fleet.vehicles[0]!.registration;
    const exec = t.fleet.vehicles[3]!.registration;
    for (const [reg, who, want] of [
      ['NOPE 1', 'main', 404],
      [exec, 'sub', 404],
      [cam, 'main', 0],
    ] as const) {
      const live = await t.call('POST', `/vision/livestream/${enc(reg)}`, { who, body: {} });
      const up = await t.call('POST', '/vision/video/upload', { who, body: clip(reg) });
      const req = await t.call('POST', '/vision/videos/requests', { who, body: clip(reg) });
      if (want === 404) {
        expect([live.status, up.status, req.status], `${reg} as ${who}`).toEqual([404, 404, 404]);
      } else {
        expect([live.status, up.status, req.status]).toEqual([200, 202, 202]);
        expect(live.json<{ data: { stream_url: string } }>().data.stream_url).toMatch(/^https:/);
        expect(req.json<{ data: Record<string, unknown> }>().data).toMatchObject({
          status: 'REQUESTED',
          channels: [1],
        });
      }
    }
    // The main account may address the Executive vehicle; a vehicle without a camera is a 422.
    expect((await t.call('POST', `/vision/livestream/${enc(exec)}`, { body: {} })).status).toBe(200);
    expect(
      (await t.call('POST', `/vision/livestream/${enc(t.fleet.vehicles[1]!.registration)}`, { body: {} }))
        .status,
    ).toBe(422);
    const long = { ...clip(t.fleet.vehicles[0]!.registration), end_timestamp: '2026-04-19 10:30:00' };
    expect((await t.call('POST', '/vision/videos/requests', { body: long })).status).toBe(422);
  });
});
