import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enc, startTestSim, type TestSim } from '../helpers/simulator-harness.ts';

let t: TestSim;
beforeAll(async () => {
  t = await startTestSim();
});
afterAll(() => t.sim.close());

const reg = (i: number) => enc(t.fleet.vehicles[i]!.registration);
const lock = (i: number, action = 'lock') =>
  t.call('PUT', `/vehicles/${reg(i)}/central-locking`, { body: { action } });
const horn = (i: number, command = 'horn') =>
  t.call('POST', `/vehicles/commands/${reg(i)}`, { body: { command } });

describe('vehicle commands and the 30 s cooldown', () => {
  it('accepts a command, then answers 409 with Retry-After and the error body until 30 s have passed', async () => {
    const ok = await lock(0);
    expect(ok.status).toBe(200);
    expect(ok.json<{ data: Record<string, unknown> }>().data).toMatchObject({
      command: 'lock',
      status: 'SENT',
    });
    t.advance(12_300);
    const again = await lock(0);
    expect(again.status).toBe(409);
    expect(again.headers['retry-after']).toBe('18'); // 17.7 s left, rounded up
    const body = again.json<{ data: unknown; error: { code: number; message: string } }>();
    expect(body.data).toBeNull();
    expect(body.error.code).toBe(409);
    expect(body.error.message).toMatch(/lock/);
    t.advance(17_699);
    expect((await lock(0)).status).toBe(409);
    t.advance(1);
    expect((await lock(0)).status).toBe(200); // exactly 30 s after the accepted one
  });

  it('leaves a different command to the same vehicle and the same command to another vehicle unaffected', async () => {
    t.advance(60_000);
    expect((await horn(1)).status).toBe(200);
    expect((await horn(1)).status).toBe(409);
    expect((await horn(1, 'hazard_lights')).status).toBe(200);
    expect((await horn(2)).status).toBe(200);
    expect((await lock(1, 'unlock')).status).toBe(200);
    expect((await lock(1, 'lock')).status).toBe(200); // lock and unlock cool down separately
    expect((await horn(1, 'hazard_lights')).status).toBe(409);
  });

  it('answers 404 for an unknown registration and 422 for an unknown command', async () => {
    expect(
      (await t.call('PUT', '/vehicles/NOPE%201/central-locking', { body: { action: 'lock' } })).status,
    ).toBe(404);
    expect((await t.call('POST', '/vehicles/commands/NOPE%201', { body: { command: 'horn' } })).status).toBe(
      404,
    );
    expect((await horn(3, 'self_destruct')).status).toBe(422);
    expect((await lock(3, 'open')).status).toBe(422);
  });

  it('still serves the legacy immobilise endpoints', async () => {
    const r = await t.call('PUT', `/vehicles/${reg(4)}/immobilise`, { body: { action: 'immobilise' } });
    expect(r.status).toBe(200);
    const s = await t.get('/vehicles/immobilise/status');
    expect(s.status).toBe(200);
    const rows = s.json().data;
    expect(rows).toHaveLength(t.fleet.vehicles.length);
    expect(rows.find((x) => x.registration === t.fleet.vehicles[4]!.registration)?.immobilised).toBe(true);
    expect(rows.find((x) => x.registration === t.fleet.vehicles[0]!.registration)?.immobilised).toBe(false);
    expect((await t.call('PUT', '/vehicles/NOPE/immobilise', { body: { action: 'mobilise' } })).status).toBe(
      404,
    );
  });
});
