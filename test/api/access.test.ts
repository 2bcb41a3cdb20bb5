/**
 * Endpoints refused or missing (src/api/access.ts), against a real node:http server: a 404 on a
 * collection endpoint is "not available on this account", on a path naming a vehicle it is not;
 * an endpoint not known to answer sends one probe while the other requests of it wait, a refused
 * one is not sent again in the run, and the next run (rearm) probes it once more.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createGate } from '../../src/api/access.ts';
import { json, list, rejection, scriptedClient, type ScriptedClient } from '../helpers/api.ts';

let h: ScriptedClient | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const DAY = '2026-03-01';
const notFound = { error: { code: 404, message: 'Not found.' } };

describe('endpoint access', () => {
  it('a 404 on a collection endpoint costs one request however many ask at once, until the next run', async () => {
    let missing = true;
    h = await scriptedClient(
      (r, res) =>
        r.path === '/rest/vehicles/activity' && missing ? json(res, 404, notFound) : json(res, 200, list([])),
      { concurrency: 8 },
    );
    const { srv, client } = h;
    const activity = () => srv.seen.filter((s) => s.path === '/rest/vehicles/activity').length;
    const errors = await Promise.all(
      Array.from({ length: 10 }, () => rejection(client.listVehicleActivity(DAY))),
    );
    expect(errors.map((e) => e?.code)).toEqual(Array(10).fill('E_ENDPOINT_MISSING'));
    expect(errors[0]?.message).toMatch(
      /^GET \/vehicles\/activity: HTTP 404 Not found: not available on this account/,
    );
    expect(activity()).toBe(1);
    expect(client.access().refused.map((r) => [r.endpoint, r.state])).toEqual([
      ['GET /vehicles/activity', 'not_available'],
    ]);

    client.rearm(); // the next run: one probe again, still missing
    await Promise.all(Array.from({ length: 10 }, () => rejection(client.listVehicleActivity(DAY))));
    expect(activity()).toBe(2);

    missing = false;
    client.rearm(); // the module is back: the probe answers and the others follow it
    await Promise.all(Array.from({ length: 10 }, () => client.listVehicleActivity(DAY)));
    expect(activity()).toBe(12);
    expect(client.access()).toEqual({ answered: ['GET /vehicles/activity'], refused: [] });
  });

  it('a 404 on a path naming a vehicle is no refusal of the endpoint', async () => {
    h = await scriptedClient((r, res) =>
      r.path.startsWith('/rest/vehicles/GONE') ? json(res, 404, notFound) : json(res, 200, { data: null }),
    );
    const { client, srv } = h;
    const from = Date.parse('2026-03-01T00:00:00Z');
    const e = await rejection(client.getOdometer('GONE', from, from + 86_400_000));
    expect(e?.code).toBe('E_HTTP');
    expect(await client.getOdometer('X1', from, from + 86_400_000)).toBeNull();
    expect(srv.seen).toHaveLength(2);
    expect(client.access().refused).toEqual([]);
  });

  it('trusted endpoints (recorded as answering) go without a probe: all at once', async () => {
    let inFlight = 0;
    let most = 0;
    h = await scriptedClient(
      async (_r, res) => {
        most = Math.max(most, ++inFlight);
        // Held until all four are in (or 500 ms: a loaded machine sets up four connections in
        // more than the 20 ms this once waited), so requests sent together are seen together.
        for (let t = 0; most < 4 && t < 500; t += 10) await new Promise((r) => setTimeout(r, 10));
        inFlight--;
        json(res, 200, list([]));
      },
      { concurrency: 4 },
    );
    h.client.rearm();
    await Promise.all(Array.from({ length: 4 }, () => h!.client.listVehicleActivity(DAY)));
    const probed = most;
    most = 0;
    h.client.rearm(['GET /vehicles/activity']);
    await Promise.all(Array.from({ length: 4 }, () => h!.client.listVehicleActivity(DAY)));
    // Untrusted: the probe alone, then the 3 others at once; trusted: all 4 at once.
    expect([probed, most]).toEqual([3, 4]);
  });
});

describe('the gate alone', () => {
  it('a waiter leaves on abort with the reason; a probe that ends without a verdict hands over to the next', async () => {
    const gate = createGate();
    expect(await gate.enter('GET /x')).toBe(true); // the probe
    const ctl = new AbortController();
    const aborted = gate.enter('GET /x', () => ctl.signal);
    const next = gate.enter('GET /x');
    const stop = new Error('stopped');
    ctl.abort(stop);
    await expect(aborted).rejects.toBe(stop);
    gate.leave('GET /x', true); // no answer (aborted, say): the next request probes
    expect(await next).toBe(true);
    gate.open('GET /x', true);
    expect(await gate.enter('GET /x')).toBe(false);
    expect(gate.view()).toEqual({ answered: ['GET /x'], refused: [] });
  });
});
