/**
 * Heavy downloads under concurrency (issue 16): a synced database, the real server on port 0, and
 * many full-range downloads at once. Every answer is a complete file byte-equal to the export
 * code of `fleetsync export`, or 503 with Retry-After when the line is full; never a 500. Light
 * calls (status, kpis) answer while the line is full. JSON answers cached by data version follow
 * a new sync. JSON pages above STREAM_PAGE_ROWS are streamed with the rows and totals runReport
 * gives, and queue as downloads do.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { exportReport } from '../../src/reports/export.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport, runReport } from '../../src/reports/run.ts';
import { createHeavyQueue } from '../../src/server/heavy-queue.ts';
import { STREAM_PAGE_ROWS } from '../../src/server/report-routes.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
const servers: RunningServer[] = [];

beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 20, days: 120 }, instantWaits: true });
  const s = await h.sync();
  expect(s.outcome).toBe('ok');
}, 240_000);
afterAll(async () => {
  for (const s of servers) await s.close();
  await h?.close();
});

async function serve(downloads?: ReturnType<typeof createHeavyQueue>) {
  const config = loadConfig({
    FLEETSYNC_ACCOUNT: ACCOUNT,
    FLEET_TIMEZONE: h.fleet.timezone,
    FLEETSYNC_PORT: '0',
  });
  const s = await startServer({
    db: h.db,
    config,
    log: silentLogger,
    now: h.now,
    port: 0,
    host: '127.0.0.1',
    ...(downloads ? { downloads } : {}),
  });
  servers.push(s);
  return s;
}

const range = () => ({ from: h.firstDay, to: h.lastDay });
const q = () => `from=${h.firstDay}&to=${h.lastDay}`;

/** The file `fleetsync export` writes for the same report and range. */
async function exported(name: string, format: 'csv' | 'parquet'): Promise<Buffer> {
  const def = requireReport(name);
  const scope = { account: ACCOUNT, zone: h.fleet.timezone, nowMs: h.now() };
  const params = parseReportParams(range(), def, scope);
  const out = join(h.dir, `expected-${name}.${format}`);
  const con = await h.db.connect();
  try {
    await exportReport(con, def, scope, params, format, out);
  } finally {
    con.closeSync();
  }
  return readFileSync(out);
}

async function download(base: string, file: string) {
  const res = await fetch(`${base}api/reports/${file}?${q()}`);
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: Buffer.from(await res.arrayBuffer()),
  };
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
};

describe('downloads in a queue', () => {
  it('a full line answers 503 with Retry-After; the queued ones complete byte-equal; status and kpis answer meanwhile', async () => {
    const queue = createHeavyQueue({ running: 1, waiting: 2 });
    const s = await serve(queue);
    const expected = await exported('trips', 'csv');
    expect(expected.length).toBeGreaterThan(100_000);
    // The test holds the one running place, as a long download would.
    const hold = await queue.enter()!;
    const calls = Array.from({ length: 6 }, () => download(s.url, 'trips.csv'));
    await until(() => queue.queued === 2);
    // Light calls do not queue behind downloads.
    const status = await fetch(`${s.url}api/status`);
    expect(status.status).toBe(200);
    const kpis = await fetch(`${s.url}api/reports/kpis?${q()}`);
    expect(kpis.status).toBe(200);
    hold();
    const answers = await Promise.all(calls);
    const ok = answers.filter((a) => a.status === 200);
    const busy = answers.filter((a) => a.status === 503);
    expect(ok).toHaveLength(2);
    expect(busy).toHaveLength(4);
    for (const a of busy) {
      expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(a.body.toString('utf8'))).toMatchObject({ error: 'E_BUSY' });
    }
    for (const a of ok) expect(a.body.equals(expected)).toBe(true);
    expect(queue.active).toBe(0);
  }, 120_000);

  it('8 concurrent full-range downloads (CSV and Parquet): none fails, each is complete or 503 + Retry-After', async () => {
    const s = await serve();
    const csv = await exported('trips', 'csv');
    const parquet = await exported('trips', 'parquet');
    const files = Array.from({ length: 8 }, (_, i) => (i % 2 ? 'trips.parquet' : 'trips.csv'));
    const answers = await Promise.all([
      ...files.map((f) => download(s.url, f)),
      fetch(`${s.url}api/status`).then((r) => ({ status: r.status, light: true })),
    ]);
    for (const a of answers) expect([200, 503]).toContain(a.status);
    let complete = 0;
    answers.forEach((a, i) => {
      if ('light' in a) return expect(a.status).toBe(200);
      if (a.status === 503) return expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
      complete++;
      // Parquet carries no time of writing, so the same query gives the same bytes.
      expect(a.body.equals(files[i]!.endsWith('.csv') ? csv : parquet)).toBe(true);
    });
    expect(complete).toBeGreaterThanOrEqual(2);
  }, 180_000);
});

describe('JSON answers cached by data version', () => {
  it('a repeated call gives the same JSON; after another sync the runs report and /api/status show the new run', async () => {
    const s = await serve();
    const get = async (path: string) => {
      const r = await fetch(`${s.url}api/reports/${path}`);
      expect(r.status).toBe(200);
      const { generated_at: _g, ...rest } = (await r.json()) as Record<string, unknown>;
      return rest;
    };
    const first = await get(`mileage?${q()}`);
    expect(await get(`mileage?${q()}`)).toEqual(first);
    const runsBefore = (await get(`runs?${q()}`)).rows as unknown[];
    const status = async () => {
      const r = await fetch(`${s.url}api/status`);
      expect(r.status).toBe(200);
      return (await r.json()) as { last_run: { run_id: string } | null; runs: { run_id: string }[] };
    };
    const statusBefore = await status();
    expect(await status()).toEqual({ ...statusBefore, now: expect.any(String) as unknown });
    const again = await h.sync();
    const statusAfter = await status();
    expect(statusAfter.last_run?.run_id).toBe(again.run_id);
    expect(statusAfter.runs.length).toBe(statusBefore.runs.length + 1);
    const runsAfter = (await get(`runs?${q()}`)).rows as Array<Record<string, unknown>>;
    expect(runsAfter.length).toBe(runsBefore.length + 1);
    expect(runsAfter.map((r) => r.run_id)).toContain(again.run_id);
  }, 180_000);
});

describe('large JSON pages', () => {
  /** The answer runReport gives for the page: what the route sent before large pages were streamed. */
  async function reference(
    name: string,
    page: { limit: number; offset: number; sort?: string; desc?: boolean },
  ) {
    const def = requireReport(name);
    const scope = { account: ACCOUNT, zone: h.fleet.timezone, nowMs: h.now() };
    const con = await h.db.connect();
    try {
      const {
        report: _r,
        columns: _c,
        ...rest
      } = await runReport(con, def, scope, parseReportParams(range(), def, scope), page);
      return rest;
    } finally {
      con.closeSync();
    }
  }

  it('a page above STREAM_PAGE_ROWS is streamed with the rows, total and totals runReport gives', async () => {
    const s = await serve();
    const cases = [
      { name: 'trips', query: `limit=100000`, page: { limit: 100_000, offset: 0 } },
      {
        name: 'trips',
        query: `limit=${STREAM_PAGE_ROWS + 1}&offset=7&sort=distance_km&dir=desc`,
        page: { limit: STREAM_PAGE_ROWS + 1, offset: 7, sort: 'distance_km', desc: true },
      },
      { name: 'tolls', query: `limit=100000`, page: { limit: 100_000, offset: 0 } },
      { name: 'mileage', query: `limit=100000`, page: { limit: 100_000, offset: 0 } },
    ];
    for (const c of cases) {
      const res = await fetch(`${s.url}api/reports/${c.name}?${q()}&${c.query}`);
      expect(res.status, c.query).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const body = (await res.json()) as Record<string, unknown>;
      const ref = await reference(c.name, c.page);
      expect({
        rows: body.rows,
        total: body.total,
        totals: body.totals,
        totals_blank: body.totals_blank,
      }).toEqual(ref);
      expect(body.limit).toBe(c.page.limit);
      expect(res.headers.get('x-fleetsync-rows')).toBe(String(ref.total));
    }
    // Every field but the page size equals the answer of a small page holding the same rows.
    const all = (await (await fetch(`${s.url}api/reports/mileage?${q()}&limit=100000`)).json()) as Record<
      string,
      unknown
    >;
    const small = (await (
      await fetch(`${s.url}api/reports/mileage?${q()}&limit=${(all.total as number) + 1}`)
    ).json()) as Record<string, unknown>;
    const { generated_at: _a, limit: _l, ...streamed } = all;
    const { generated_at: _b, limit: _m, ...kept } = small;
    expect(streamed).toEqual(kept);
  }, 120_000);

  it('a kept answer is the JSON of the whole answer, rows last; a large page waits in the heavy line or gets 503', async () => {
    const queue = createHeavyQueue({ running: 1, waiting: 0 });
    const s = await serve(queue);
    const res = await fetch(`${s.url}api/reports/trips?${q()}&limit=50`);
    const text = await res.text();
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(JSON.stringify(body)).toBe(text);
    expect(Object.keys(body).at(-1)).toBe('rows');
    expect((body.rows as unknown[]).length).toBe(50);
    const hold = await queue.enter()!;
    const busy = await fetch(`${s.url}api/reports/trips?${q()}&limit=100000`);
    expect(busy.status).toBe(503);
    expect(Number(busy.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Pages that are kept (the dashboard's) do not queue.
    expect((await fetch(`${s.url}api/reports/trips?${q()}&limit=1000`)).status).toBe(200);
    hold();
    expect((await fetch(`${s.url}api/reports/trips?${q()}&limit=100000`)).status).toBe(200);
  }, 120_000);
});
