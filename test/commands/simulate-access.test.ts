/**
 * `fleetsync simulate --missing … --subuser-forbidden …`: a person can see a module the account
 * lacks (404 to everyone) and a read refused to the subuser (403 to its password only) without
 * writing code; a value that is not one of the sync's endpoints is a usage error listing them.
 */
import { describe, expect, it } from 'vitest';
import { request } from 'undici';
import { simulateCommand } from '../../src/commands/simulate.ts';
import { FleetsyncError } from '../../src/errors.ts';

const auth = (password: string) => ({
  authorization: `Basic ${Buffer.from(`demo:${password}`).toString('base64')}`,
});

function ctx(stdout: (t: string) => void, stopSignal: AbortSignal) {
  return { now: Date.now, argv: [], env: {}, stdout, stderr: () => undefined, stopSignal };
}

describe('simulate --missing / --subuser-forbidden', () => {
  it('answers 404 to everyone on a missing endpoint and 403 to the subuser alone on a forbidden one', async () => {
    const stop = new AbortController();
    let out = '';
    const running = simulateCommand.run(
      {
        values: {
          port: '0',
          vehicles: '2',
          days: '3',
          missing: 'GET /vehicles/activity',
          'subuser-forbidden': 'GET /drivers, GET  /carpool/vehicles',
        },
        positionals: [],
      },
      ctx((t) => (out += t), stop.signal),
    );
    for (let i = 0; i < 400 && !out.includes('Stop with'); i++) await new Promise((r) => setTimeout(r, 10));
    try {
      expect(out).toContain('  missing on this account (404): GET /vehicles/activity\n');
      expect(out).toContain('  refused to the subuser (403): GET /drivers, GET /carpool/vehicles\n');
      const base = /listening: (\S+)/.exec(out)![1]!;
      const status = async (path: string, password: string) =>
        (
          await request(`${base}${path}`, { headers: auth(password) }).then(
            async (r) => (await r.body.dump(), r),
          )
        ).statusCode;
      expect(await status('/drivers', 'demo-main')).toBe(200);
      expect(await status('/drivers', 'demo-sub')).toBe(403);
      expect(await status('/carpool/vehicles', 'demo-sub')).toBe(403);
      expect(await status('/vehicles', 'demo-sub')).toBe(200);
      const activity = '/vehicles/activity?start_date=2026-01-01&end_date=2026-01-02';
      expect(await status(activity, 'demo-main')).toBe(404);
      expect(await status(activity, 'demo-sub')).toBe(404);
    } finally {
      stop.abort();
      await running;
    }
  });

  it('names the endpoints when a value is not one of them', async () => {
    const e = await simulateCommand
      .run(
        { values: { 'subuser-forbidden': 'GET /drivers,GET /nowhere' }, positionals: [] },
        ctx(() => undefined, AbortSignal.abort()),
      )
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FleetsyncError);
    expect((e as FleetsyncError).code).toBe('E_USAGE');
    expect((e as Error).message).toMatch(
      /^--subuser-forbidden must be a comma-separated list of the sync's endpoints, e\.g\. "GET \/drivers,GET \/vehicles\/activity" \(not one: "GET \/nowhere"\); they are: GET \/vehicles, /,
    );
    for (const endpoint of ['GET /drivers', 'GET /vehicles/activity', 'POST /vehicles/ev-consumption'])
      expect((e as Error).message).toContain(endpoint);
  });
});
