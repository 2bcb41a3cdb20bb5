import { afterEach, describe, expect, it } from 'vitest';
import { createFleetClient, type FleetClient } from '../../src/api/client.ts';
import { isFleetsyncError } from '../../src/errors.ts';
import { localDayBounds, localMonthBounds } from '../../src/time.ts';
import {
  fakeClock,
  json,
  list,
  PASSWORD,
  startServer,
  type Handler,
  type TestServer,
} from '../helpers/api.ts';

const SYD = 'Australia/Sydney';
let srv: TestServer | undefined;
let client: FleetClient | undefined;
afterEach(async () => {
  await client?.close();
  await srv?.close();
  srv = client = undefined;
});

async function setup(handler: Handler): Promise<{ srv: TestServer; client: FleetClient }> {
  const clock = fakeClock();
  srv = await startServer(handler, clock.now);
  client = createFleetClient({
    baseUrl: srv.baseUrl,
    username: 'acme',
    password: PASSWORD,
    timezone: SYD,
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
  });
  return { srv, client };
}

const odometer = {
  data: {
    start_odometer_value: 1000,
    end_odometer_value: 2500,
    distance: 1500,
    odometer_reset: false,
    terminal_has_changed: false,
  },
};

describe('what the client sends', () => {
  it('sends Basic auth, Accept: application/json and a percent-encoded registration', async () => {
    const { srv, client } = await setup((_r, res) => json(res, 200, odometer));
    const day = localDayBounds('2026-03-10', SYD);
    const r = await client.getOdometer('ab 123 gp', day.startMs, day.endMs);
    const seen = srv.seen[0]!;
    expect(seen.headers.authorization).toBe(`Basic ${Buffer.from(`acme:${PASSWORD}`).toString('base64')}`);
    expect(seen.headers.accept).toBe('application/json');
    expect(seen.url.startsWith('/rest/vehicles/ab%20123%20gp/odometer?')).toBe(true);
    expect(r?.registration).toBe('ab 123 gp');
    expect(r?.distance_m).toBe(1500);
  });

  it('sends local wall-time bounds with an inclusive end second, on both DST days of Sydney', async () => {
    const { srv, client } = await setup((r, res) =>
      r.path.endsWith('/odometer') ? json(res, 200, odometer) : json(res, 200, list([])),
    );
    for (const day of ['2026-04-05', '2026-10-04']) {
      const b = localDayBounds(day, SYD); // 25 h and 23 h long
      await client.getOdometer('X1', b.startMs, b.endMs);
    }
    const q = srv.seen.map((s) => [s.query.get('start_timestamp'), s.query.get('end_timestamp')]);
    expect(q).toEqual([
      ['2026-04-05 00:00:00', '2026-04-05 23:59:59'],
      ['2026-10-04 00:00:00', '2026-10-04 23:59:59'],
    ]);
    // The 25-hour day passes the 24-hour cap of visits: the server sees local bounds, not instants.
    const fallBack = localDayBounds('2026-04-05', SYD);
    srv.seen.length = 0;
    await client.listVisits(fallBack.startMs, fallBack.endMs, { isToll: true });
    expect(srv.seen).toHaveLength(1);
  });

  it('rejects windows over the endpoint cap before sending anything', async () => {
    const { srv, client } = await setup((_r, res) => json(res, 200, list([])));
    const day = localDayBounds('2026-03-10', SYD);
    const H = 3_600_000;
    const over31 = day.startMs + 32 * 24 * H;
    const attempts: (() => Promise<unknown>)[] = [
      () => client.listTrips(day.startMs, over31),
      () => client.getOdometer('X1', day.startMs, over31),
      () => client.getFuelConsumed('X1', day.startMs, over31),
      () => client.listBookings(day.startMs, over31),
      () => client.listVisits(day.startMs, day.endMs + H),
      () => client.getFuelConsumedBulk(['X1'], day.startMs, day.endMs + H),
      () => client.getFuelLevelBulk(['X1'], day.startMs, day.endMs + H),
      () => client.listAllFuelFills(day.startMs, day.endMs + H),
      () => client.listTrips(day.endMs, day.startMs),
    ];
    for (const a of attempts) {
      const e = await a().then(
        () => null,
        (err: unknown) => err,
      );
      expect(isFleetsyncError(e, 'E_WINDOW_CAP'), String(e)).toBe(true);
    }
    expect(srv.seen).toHaveLength(0);
    // A whole local month of 31 days is fine for the 31-day endpoints, even across a DST change.
    const march = localMonthBounds('2026-03', SYD);
    await client.listTrips(march.startMs, march.endMs);
    const spanning = {
      from: localDayBounds('2026-03-20', SYD).startMs,
      to: localDayBounds('2026-04-20', SYD).startMs,
    };
    await client.listTrips(spanning.from, spanning.to); // 31 local days = 31 d + 1 h of instants
    expect(srv.seen.map((s) => s.query.get('end_timestamp'))).toEqual([
      '2026-03-31 23:59:59',
      '2026-04-19 23:59:59',
    ]);
  });

  it('uses the wire query names and the bulk POST body', async () => {
    const { srv, client } = await setup((r, res) =>
      r.path === '/rest/carpool/bookings/77'
        ? json(res, 404, { error: { code: 404, message: 'no such booking' } })
        : json(res, 200, list([])),
    );
    const day = localDayBounds('2026-03-10', SYD);
    await client.listVisits(day.startMs, day.endMs, { isToll: true, vehicleId: 42 });
    await client.listBookings(day.startMs, day.endMs);
    await client.listTrips(day.startMs, day.endMs, 'ab 1');
    await client.getFuelConsumedBulk(['ab 1', 'CD2'], day.startMs, day.endMs);
    expect(await client.getBooking(77)).toBeNull();
    const [visits, bookings, trips, bulk] = srv.seen;
    expect(Object.fromEntries(visits!.query)).toEqual({
      'filter[enter_timestamp]': '2026-03-10 00:00:00',
      'filter[exit_timestamp]': '2026-03-10 23:59:59',
      'filter[is_toll]': 'true',
      'filter[vehicle_id]': '42',
      page: '1',
      limit: '500',
    });
    expect(bookings!.query.get('filter[start_timestamp]')).toBe('2026-03-10 00:00:00');
    expect(bookings!.query.get('filter[end_timestamp]')).toBe('2026-03-10 23:59:59');
    expect(trips!.path).toBe('/rest/trips/ab%201');
    expect(bulk!.method).toBe('POST');
    expect(bulk!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(bulk!.body)).toEqual({
      registrations: ['ab 1', 'CD2'],
      start_timestamp: '2026-03-10 00:00:00',
      end_timestamp: '2026-03-10 23:59:59',
      page: 1,
      limit: 500,
    });
  });

  it('splits bulk fuel requests into 100 registrations per call', async () => {
    const { srv, client } = await setup((_r, res) => json(res, 200, list([])));
    const day = localDayBounds('2026-03-10', SYD);
    const regs = Array.from({ length: 250 }, (_, i) => `R${i}`);
    await client.getFuelLevelBulk(regs, day.startMs, day.endMs);
    expect(
      srv.seen.map((s) => (JSON.parse(s.body) as { registrations: string[] }).registrations.length),
    ).toEqual([100, 100, 50]);
  });

  it('turns 401 into E_AUTH without a retry and sends nothing more until rearmed; other 4xx into E_HTTP', async () => {
    const { srv, client } = await setup((r, res) =>
      r.path.endsWith('/vehicles')
        ? json(res, 401, { error: { code: 401, message: 'Unauthorized' } })
        : json(res, 422, { error: { code: 422, message: 'Range exceeds 31 days' } }),
    );
    const auth = await client.listVehicles().catch((e: unknown) => e);
    expect(isFleetsyncError(auth, 'E_AUTH')).toBe(true);
    expect(srv.seen).toHaveLength(1);
    const day = localDayBounds('2026-03-10', SYD);
    // Refused credentials stop the client: no further request reaches the API (an account lock).
    const again = await client.listTrips(day.startMs, day.endMs).catch((e: unknown) => e);
    expect(again).toBe(auth);
    expect(srv.seen).toHaveLength(1);
    client.rearm(); // what a new run does
    const bad = await client.listTrips(day.startMs, day.endMs).catch((e: unknown) => e);
    expect(isFleetsyncError(bad, 'E_HTTP')).toBe(true);
    expect((bad as Error).message).toContain('Range exceeds 31 days');
    expect(srv.seen).toHaveLength(2);
  });
});
