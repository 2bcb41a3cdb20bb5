import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_SUBUSER_ID } from '../../src/simulator/spec/state.ts';
import { startTestSim, type TestSim } from '../helpers/simulator-harness.ts';

let t: TestSim;
beforeAll(async () => {
  t = await startTestSim();
});
afterAll(() => t.sim.close());

const job = (reference: string, extra: Record<string, unknown> = {}) => ({
  reference,
  customer_name: 'Acme Pty',
  address: '1 George St, Sydney',
  ...extra,
});

/** A node:http receiver on port 0 that records callbacks. */
async function receiver() {
  const got: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  let wake: () => void = () => {};
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
      wake();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/delivery`;
  const next = () => new Promise<void>((r) => (got.length ? r() : (wake = r)));
  return { url, got, next, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('delivery jobs', () => {
  it('creates one job; a validation failure is non-200 with a message', async () => {
    const r = await t.call('POST', '/delivery/jobs', { body: job('J-1') });
    expect(r.status).toBe(201);
    expect(r.json<{ data: Record<string, unknown> }>().data).toMatchObject({
      reference: 'J-1',
      subuser_id: null,
    });
    for (const bad of [
      job('J-2', { address: '' }),
      job('J-3', { scheduled_date: '24/08/2026' }),
      job('J-1'),
      [1],
    ]) {
      const e = await t.call('POST', '/delivery/jobs', { body: bad });
      expect(e.status).toBe(422);
      expect(e.json().error.message).toMatch(/\w/);
    }
  });

  it('attributes a main-account write to a subuser with subuser_id; rejects an unknown subuser_id', async () => {
    const r = await t.call('POST', '/delivery/jobs', { body: job('J-sub', { subuser_id: SIM_SUBUSER_ID }) });
    expect(r.status).toBe(201);
    expect(r.json<{ data: Record<string, unknown> }>().data.subuser_id).toBe(SIM_SUBUSER_ID);
    const bad = await t.call('POST', '/delivery/jobs', {
      body: job('J-x', { subuser_id: '00000000-0000-0000-0000-000000000000' }),
    });
    expect(bad.status).toBe(422);
  });

  it('answers 403 to every subuser write under /delivery, and to the drivers report', async () => {
    const writes: [string, string][] = [
      ['POST', '/delivery/jobs'],
      ['POST', '/delivery/jobs/bulk-upload'],
      ['PUT', '/delivery/jobs/1'],
      ['DELETE', '/delivery/jobs/1'],
      ['POST', '/delivery/drivers'], // no such route: still 403, never 404
    ];
    for (const [method, path] of writes) {
      const r = await t.call(method, path, { who: 'sub', body: job('J-sub-write') });
      expect(r.status, `${method} ${path}`).toBe(403);
    }
    expect((await t.get('/delivery/reports/drivers', undefined, 'sub')).status).toBe(403);
    const main = await t.get('/delivery/reports/drivers');
    expect(main.status).toBe(200);
    expect(main.json().data.length).toBeGreaterThan(0);
  });

  it("lets a subuser read the whole account's jobs", async () => {
    const asMain = (await t.get('/delivery/jobs', { limit: '500' })).json().data;
    const asSub = (await t.get('/delivery/jobs', { limit: '500' }, 'sub')).json().data;
    expect(asSub).toEqual(asMain);
    expect(asSub.some((j) => j.subuser_id === null)).toBe(true);
    expect(asSub.some((j) => j.subuser_id === SIM_SUBUSER_ID)).toBe(true);
  });

  it('bulk upload is asynchronous and calls webhooks_url with the jobs created (signed)', async () => {
    const hook = await receiver();
    try {
      const rows = [
        job('B-1'),
        job('B-2', { subuser_id: SIM_SUBUSER_ID }),
        job('B-3', { customer_name: '' }),
        job('B-1'), // duplicate of row 1
      ];
      const r = await t.call('POST', '/delivery/jobs/bulk-upload', {
        body: { jobs: rows, webhooks_url: hook.url },
      });
      expect(r.status).toBe(202);
      const { upload_id } = r.json<{ data: { upload_id: string; status: string } }>().data;
      await hook.next();
      expect(hook.got).toHaveLength(1);
      const cb = JSON.parse(hook.got[0]!.body) as {
        upload_id: string;
        status: string;
        submitted: number;
        created: { row: number; job_id: number; reference: string }[];
        failed: { row: number; message: string }[];
      };
      expect(cb).toMatchObject({ upload_id, status: 'COMPLETED', submitted: 4 });
      expect(cb.created.map((c) => [c.row, c.reference])).toEqual([
        [1, 'B-1'],
        [2, 'B-2'],
      ]);
      expect(cb.failed.map((f) => f.row)).toEqual([3, 4]);
      const sig = createHmac('sha256', 'demo-main').update(hook.got[0]!.body).digest('hex');
      expect(hook.got[0]!.headers['x-webhook-signature']).toBe(sig);
      // Reconcile: the created jobs are listed, with the attribution of their row.
      const listed = (await t.get('/delivery/jobs', { limit: '500' })).json().data;
      const ids = new Set(cb.created.map((c) => c.job_id));
      const mine = listed.filter((j) => ids.has(j.job_id as number));
      expect(mine.map((j) => [j.reference, j.subuser_id])).toEqual([
        ['B-1', null],
        ['B-2', SIM_SUBUSER_ID],
      ]);
      await t.sim.settle();
      const status = (await t.get(`/delivery/jobs/bulk-upload/${upload_id}`)).json<{
        data: Record<string, unknown>;
      }>();
      expect(status.data).toMatchObject({ status: 'COMPLETED', webhook_status: 204 });
    } finally {
      await hook.close();
    }
  });

  it('refuses a bulk upload without jobs or with a bad webhooks_url', async () => {
    expect((await t.call('POST', '/delivery/jobs/bulk-upload', { body: { jobs: [] } })).status).toBe(422);
    const bad = await t.call('POST', '/delivery/jobs/bulk-upload', {
      body: { jobs: [job('Z')], webhooks_url: 'ftp://x' },
    });
    expect(bad.status).toBe(422);
  });
});
