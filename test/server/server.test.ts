import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { REPORT_NAMES, getReport } from '../../src/reports/registry.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import type { RunSummary } from '../../src/sync/types.ts';
import { formatLocal } from '../../src/time.ts';
import { NOW, ZONE, openFixture, parseCsv, type FixtureDb } from '../helpers/report-fixture.ts';

let fx: FixtureDb;
let srv: RunningServer;
const config = (env: Record<string, string> = {}) =>
  loadConfig({ FLEETSYNC_ACCOUNT: 'acme', FLEET_TIMEZONE: 'UTC', FLEETSYNC_PORT: '0', ...env });

beforeAll(async () => {
  fx = await openFixture();
  srv = await startServer({ db: fx.db, config: config(), log: silentLogger, now: () => NOW });
});
afterAll(async () => {
  await srv?.close();
  fx?.close();
});

const get = (path: string, init?: RequestInit) => fetch(new URL(path, srv.url), init);

function csvToRows(text: string, name: string) {
  const kinds = new Map(getReport(name)!.columns.map((c) => [c.name, c.kind]));
  const [header, ...rows] = parseCsv(text.replace(/^\uFEFF/, ''));
  return rows.map((r) =>
    Object.fromEntries(
      header!.map((h, i) => {
        const cell = r[i]!;
        const k = kinds.get(h);
        if (cell === '') return [h, null];
        if (k === 'number' || k === 'integer') return [h, Number(cell)];
        if (k === 'boolean') return [h, cell === 'true'];
        return [h, cell.replace(/^'(?=[=+\-@\t\r])/, '')];
      }),
    ),
  );
}

describe('report API', () => {
  it.each(REPORT_NAMES.map((n) => [n]))('%s: the JSON and the CSV hold the same rows', async (name) => {
    const q = '?from=2026-03-01&to=2026-04-30';
    const json = await get(`/api/reports/${name}${q}`);
    expect(json.status).toBe(200);
    const body = (await json.json()) as { rows: Record<string, unknown>[]; zone: string; run_id: string };
    expect(body.zone).toBe(ZONE);
    const csv = await get(`/api/reports/${name}.csv${q}`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toMatch(
      /^attachment; filename="?[a-z_]+_2026-03-01_2026-04-30\.csv/,
    );
    expect(csv.headers.get('x-fleetsync-zone')).toBe(ZONE);
    expect(csv.headers.get('x-fleetsync-run-id')).toBe('run-2');
    expect(csvToRows(await csv.text(), name)).toEqual(body.rows);
  });

  it('the mileage JSON carries the same numbers the fixture was built for', async () => {
    const body = (await (await get('/api/reports/mileage?month=2026-04&vehicle=1')).json()) as {
      rows: Record<string, unknown>[];
    };
    expect(body.rows).toEqual([expect.objectContaining({ distance_km: 750, excluded_periods: 1 })]);
  });

  it('GET .parquet and .arrow hold the JSON rows (same query, the export code)', async () => {
    const q = '?from=2026-03-01&to=2026-04-30';
    const body = (await (await get(`/api/reports/mileage${q}`)).json()) as {
      rows: Record<string, unknown>[];
    };
    const pq = await get(`/api/reports/mileage.parquet${q}`);
    expect(pq.status).toBe(200);
    expect(pq.headers.get('content-type')).toBe('application/vnd.apache.parquet');
    expect(pq.headers.get('content-disposition')).toMatch(
      /filename="?mileage_2026-03-01_2026-04-30\.parquet/,
    );
    const file = join(fx.dir, 'm.parquet');
    writeFileSync(file, Buffer.from(await pq.arrayBuffer()));
    const fromParquet = (
      await fx.con.runAndReadAll(`SELECT * FROM read_parquet('${file}')`)
    ).getRowObjectsJS();
    expect(fromParquet.map((r) => [r.vehicle_id, r.period, r.distance_km])).toEqual(
      body.rows.map((r) => [BigInt(r.vehicle_id as number), r.period, r.distance_km]),
    );
    const arrow = await get(`/api/reports/mileage.arrow${q}`);
    expect(arrow.status).toBe(200);
    expect(arrow.headers.get('content-type')).toBe('application/vnd.apache.arrow.file');
    const table = tableFromIPC(new Uint8Array(await arrow.arrayBuffer()));
    expect(table.numRows).toBe(body.rows.length);
    // get(i), not toArray(): a never-synced month is null in Arrow too (toArray shows null slots as 0)
    const km = table.getChild('distance_km')!;
    expect(Array.from({ length: table.numRows }, (_, i) => km.get(i) as number | null)).toEqual(
      body.rows.map((r) => r.distance_km),
    );
    expect(body.rows.some((r) => r.distance_km === null && r.coverage === 'not_synced')).toBe(true);
  });

  it('toll_gantries: passages add up to the toll passages of the same filter', async () => {
    for (const q of ['?from=2026-03-01&to=2026-04-30', '?month=2026-04&vehicle=1']) {
      const tolls = (await (await get(`/api/reports/tolls${q}`)).json()) as { rows: unknown[] };
      const by = (await (await get(`/api/reports/toll_gantries${q}`)).json()) as {
        rows: { passages: number }[];
      };
      expect(tolls.rows.length).toBeGreaterThan(0);
      expect(
        by.rows.reduce((a, r) => a + r.passages, 0),
        q,
      ).toBe(tolls.rows.length);
    }
  });

  it('mileage_windows: per vehicle-month, counted_km adds up to distance_km and the uncounted to excluded_periods', async () => {
    const q = '?from=2026-03-01&to=2026-04-30';
    const mileage = (await (await get(`/api/reports/mileage${q}`)).json()) as {
      rows: Record<string, unknown>[];
    };
    const windows = (await (await get(`/api/reports/mileage_windows${q}`)).json()) as {
      rows: Record<string, unknown>[];
    };
    expect(mileage.rows.length).toBeGreaterThan(2);
    for (const m of mileage.rows) {
      const mine = windows.rows.filter((w) => w.vehicle_id === m.vehicle_id && w.period === m.period);
      const counted = mine.reduce((a, w) => a + ((w.counted_km as number | null) ?? 0), 0);
      expect(Math.round(counted * 1000) / 1000, `${m.registration} ${m.period}`).toBe(m.distance_km ?? 0);
      expect(mine.filter((w) => w.counted === false).length).toBe(m.excluded_periods);
    }
    expect(windows.rows.filter((w) => w.counted === false).map((w) => [w.vehicle_id, w.reason])).toEqual([
      [1, 'odometer_reset'],
      [2, 'terminal_has_changed'],
    ]);
  });

  it('reason codes: rows and downloads carry the code, the columns say its label, the registry lists the vocabulary', async () => {
    const q = '?from=2026-03-01&to=2026-04-30';
    const body = (await (await get(`/api/reports/excluded_windows${q}`)).json()) as {
      columns: { name: string; labels?: Record<string, string> }[];
      rows: Record<string, unknown>[];
    };
    expect(body.rows.map((r) => r.reason)).toEqual([
      'fuel_counter_went_down',
      'odometer_reset',
      'terminal_has_changed',
    ]);
    const labels = body.columns.find((c) => c.name === 'reason')!.labels!;
    expect(body.rows.map((r) => labels[r.reason as string])).toEqual([
      'counter went down',
      'odometer reset',
      'tracker changed',
    ]);
    // the columns of reason codes carry their labels (other enum columns carry theirs): the
    // reason, and the sync's note, whose code of a flagged window reads as its label too
    expect(body.columns.filter((c) => c.labels && c.name !== 'stream').map((c) => c.name)).toEqual([
      'reason',
      'ledger_reason',
    ]);
    expect(body.columns.find((c) => c.name === 'ledger_reason')!.labels).toEqual(labels);
    const csv = parseCsv(
      (await (await get(`/api/reports/excluded_windows.csv${q}`)).text()).replace(/^\uFEFF/, ''),
    );
    const at = csv[0]!.indexOf('reason');
    expect(csv.slice(1).map((r) => r[at])).toEqual(body.rows.map((r) => r.reason));
    // fuel_windows has always carried the label, and it is the same label
    const fw = (await (await get(`/api/reports/fuel_windows${q}`)).json()) as {
      rows: Record<string, unknown>[];
    };
    expect(fw.rows.filter((r) => r.status === 'left out').map((r) => r.reason)).toEqual([
      'counter went down',
    ]);
    const registry = (await (await get('/api/reports')).json()) as {
      reasons: { code: string; stream: string; label: string }[];
    };
    expect(registry.reasons).toContainEqual({
      code: 'fuel_counter_missing',
      stream: 'fuel_consumed',
      label: 'counter reading missing',
    });
    expect(Object.fromEntries(registry.reasons.map((r) => [r.code, r.label]))).toEqual(labels);
  });

  it.each([
    ['/api/reports/mileage?from=2026-13-01', /from/],
    ['/api/reports/mileage?from=2026-04-10&to=2026-04-01', /to: 2026-04-01 is before from 2026-04-10/],
    ['/api/reports/mileage?from=1990-01-01&to=2026-01-01', /longer than/],
    ['/api/reports/nope', /unknown report.*valid reports: mileage/],
    ['/api/reports/mileage.xls', /unknown report/],
    ['/api/reports/mileage.csv?headers=fancy', /headers: must be machine or human/],
    ['/api/reports/mileage.xlsx?headers=human', /headers: only a \.csv download/],
    ['/api/reports/mileage.csv.parquet', /unknown report/],
    ['/api/reports/..%2F..%2Fetc%2Fpasswd', /unknown report/],
    [`/api/reports/tolls?department=${'x'.repeat(201)}`, /department: .*at most 200 characters/],
    ['/api/reports/tolls?vehicle=1;DROP%20TABLE%20trips', /vehicle/],
    ['/api/reports/tolls?vehicle=1&vehicle=2', /vehicle/],
    ['/api/reports/tolls?month=2026-04&from=2026-04-01', /either month or from\/to/],
    ['/api/reports/tolls?sql=select', /unknown parameter/],
  ])('%s → 400 with a message', async (path, re) => {
    const res = await get(path);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe('E_BAD_REQUEST');
    expect(body.message).toMatch(re);
  });

  it('GET /api/status names the zone, complete-through and the last run', async () => {
    const body = (await (await get('/api/status')).json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      account: 'acme',
      zone: ZONE,
      complete_through: '2026-04-12T00:00:00+10:00',
      sync: { available: false, running: false },
    });
    expect(body.last_run).toMatchObject({ run_id: 'run-2', outcome: 'partial' });
  });
});

describe('security', () => {
  it('sets a CSP without inline script, no framing and nosniff', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('serves Chart.js from the installed package', async () => {
    const res = await get('/vendor/chart.umd.min.js');
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/Chart/);
  });

  it('needs the bearer token when the configured host is not loopback', async () => {
    const token = 'a-long-enough-secret-token';
    const s = await startServer({
      now: Date.now,
      db: fx.db,
      config: config({ FLEETSYNC_HOST: '0.0.0.0', FLEETSYNC_TOKEN: token }),
      log: silentLogger,
      host: '127.0.0.1',
      port: 0,
    });
    try {
      const url = new URL('/api/reports/kpis?month=2026-04', s.url);
      const none = await fetch(url);
      expect(none.status).toBe(401);
      expect(await none.text()).not.toContain(token);
      expect(
        (await fetch(url, { headers: { Authorization: 'Bearer wrong-token-of-some-length' } })).status,
      ).toBe(401);
      expect((await fetch(url, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('scheduler', () => {
  it('schedules FLEETSYNC_SCHEDULE in the account zone and shows the next run', async () => {
    const s = await startServer({
      now: Date.now,
      db: fx.db,
      config: config({ FLEETSYNC_SCHEDULE: '30 2 * * *' }),
      log: silentLogger,
      zone: 'Australia/Sydney',
      port: 0,
      runSync: async () => {
        throw new Error('not in this test');
      },
    });
    try {
      const next = s.nextRun();
      expect(next).not.toBeNull();
      expect(formatLocal(next!.getTime(), 'Australia/Sydney').slice(11)).toBe('02:30:00');
      const st = (await (await fetch(new URL('/api/status', s.url))).json()) as {
        sync: Record<string, unknown>;
      };
      expect(st.sync).toMatchObject({ available: true, schedule: '30 2 * * *' });
      // in the account's zone with its offset, as /healthz says it: 02:30 Sydney, the same instant
      const nextRun = String(st.sync.next_run);
      expect(nextRun).toMatch(/T02:30:00\+1[01]:00$/);
      expect(Date.parse(nextRun)).toBe(next!.getTime());
      const hz = (await (await fetch(new URL('/healthz', s.url))).json()) as {
        checks: { scheduler: { next_run: string } };
      };
      expect(hz.checks.scheduler.next_run).toBe(nextRun);
    } finally {
      await s.close();
    }
  });
});

describe('POST /api/sync', () => {
  it('refuses a state-changing call without the request header (cross-site forgery)', async () => {
    const res = await get('/api/sync', { method: 'POST' });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toMatch(/X-Fleetsync-Request/);
  });

  it('answers 503 without a sync engine', async () => {
    const res = await get('/api/sync', { method: 'POST', headers: { 'X-Fleetsync-Request': '1' } });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { message: string }).message).toMatch(/no sync engine/);
  });

  it('during a sync, GET /api/status answers without waiting for the database, with the live sync state', async () => {
    let release!: () => void;
    const syncDone = new Promise<void>((r) => (release = r));
    // While the sync runs the database stops answering statements (as if its threads were all
    // busy with the sync's and the downloads' work): status must still answer.
    let openDb!: () => void;
    let dbBusy: Promise<void> | null = null;
    const gated = <T extends object>(o: T): T =>
      new Proxy(o, {
        get(target, name) {
          const v: unknown = Reflect.get(target, name, target);
          if (typeof v !== 'function') return v;
          const f = v as (...a: unknown[]) => unknown;
          if (typeof name !== 'string' || !/^(run|prepare|stream|start)/.test(name)) return f.bind(target);
          return async (...a: unknown[]) => {
            if (dbBusy) await dbBusy;
            const out = await f.apply(target, a);
            return name.startsWith('prepare') && out && typeof out === 'object' ? gated(out) : out;
          };
        },
      });
    const db = {
      path: fx.db.path,
      instance: fx.db.instance,
      connect: async () => gated(await fx.db.connect()),
      close: () => {},
    };
    const s = await startServer({
      db,
      config: config(),
      log: silentLogger,
      port: 0,
      now: () => NOW,
      runSync: async () => {
        await syncDone;
        return {
          run_id: 'run-during',
          account: 'acme',
          outcome: 'ok',
          started_ms: NOW,
          ended_ms: NOW,
          requests: 0,
          retries: 0,
          http429ByBucket: {},
          streams: {},
          errors: [],
        };
      },
    });
    try {
      type S = { sync: { running: boolean }; complete_through: string | null; zone: string };
      const before = (await (await fetch(new URL('/api/status', s.url))).json()) as S;
      expect(before.sync.running).toBe(false);
      const started = fetch(new URL('/api/sync', s.url), {
        method: 'POST',
        headers: { 'X-Fleetsync-Request': '1' },
      });
      await expect
        .poll(async () => ((await (await fetch(new URL('/api/status', s.url))).json()) as S).sync.running)
        .toBe(true);
      dbBusy = new Promise<void>((r) => (openDb = r));
      const during = (await (await fetch(new URL('/api/status', s.url))).json()) as S;
      expect(during.sync.running).toBe(true);
      expect(during.complete_through).toBe(before.complete_through);
      expect(during.zone).toBe(ZONE);
      openDb();
      dbBusy = null;
      release();
      expect((await started).status).toBe(200);
      const after = (await (await fetch(new URL('/api/status', s.url))).json()) as S;
      expect(after.sync.running).toBe(false);
    } finally {
      openDb?.();
      release();
      await s.close();
    }
  });

  it('runs one sync at a time: 409 while one runs, then the summary', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const calls: string[] = [];
    const summary: RunSummary = {
      run_id: 'run-fake',
      account: 'acme',
      outcome: 'ok',
      started_ms: NOW,
      ended_ms: NOW,
      requests: 3,
      retries: 0,
      http429ByBucket: {},
      streams: {},
      errors: [],
    };
    const s = await startServer({
      now: Date.now,
      db: fx.db,
      config: config(),
      log: silentLogger,
      port: 0,
      runSync: async (trigger) => {
        calls.push(trigger);
        await gate;
        return summary;
      },
    });
    try {
      const first = fetch(new URL('/api/sync', s.url), {
        method: 'POST',
        headers: { 'X-Fleetsync-Request': '1' },
      });
      await expect.poll(() => calls.length).toBe(1);
      const second = await fetch(new URL('/api/sync', s.url), {
        method: 'POST',
        headers: { 'X-Fleetsync-Request': '1' },
      });
      expect(second.status).toBe(409);
      const status = (await (await fetch(new URL('/api/status', s.url))).json()) as {
        sync: { running: boolean };
      };
      expect(status.sync.running).toBe(true);
      release();
      const res = await first;
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ run_id: 'run-fake', outcome: 'ok' });
      expect(calls).toEqual(['api']);
      const third = await fetch(new URL('/api/sync', s.url), {
        method: 'POST',
        headers: { 'X-Fleetsync-Request': '1' },
      });
      expect(third.status).toBe(200);
    } finally {
      await s.close();
    }
  });
});
