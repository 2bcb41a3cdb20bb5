/**
 * `serve --lake` records no service: the lake is published from each account's own file and its
 * server's database is views of it, so a service recorded there would be lost at the next start.
 * POST /api/service/done is refused (400) saying where to record it, whether the lake holds service
 * records (views) or none (an empty in-memory table, which accepted and then lost it); the due list
 * is unchanged. The lake is the hand-worked service fixture (test/service/fixture.ts) published.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.ts';
import { publishAccount } from '../../src/lake/publish.ts';
import { ACCOUNT, openServiceFixture } from '../service/fixture.ts';

let lakes: string[] = [];
let fixtureDir: string;

beforeAll(async () => {
  const fx = await openServiceFixture();
  fixtureDir = fx.dir;
  const withPlan = mkdtempSync(join(tmpdir(), 'fleetsync-lake-svc-'));
  await publishAccount(fx.con, ACCOUNT, withPlan);
  // the same account without a plan or services: no service partitions in the lake
  await fx.con.run(
    'DELETE FROM service_plan_source; DELETE FROM service_intervals; DELETE FROM service_records',
  );
  const without = mkdtempSync(join(tmpdir(), 'fleetsync-lake-svc-'));
  await publishAccount(fx.con, ACCOUNT, without);
  fx.con.closeSync();
  fx.db.close();
  lakes = [withPlan, without];
});
afterAll(() => {
  for (const d of [...lakes, fixtureDir]) if (d) rmSync(d, { recursive: true, force: true });
});

/** `serve --lake <lake>` in this process until `stop`; its URL from what it prints. */
async function serveLake(lake: string) {
  const stop = new AbortController();
  let out = '';
  let err = '';
  const exited = main({
    argv: ['serve', '--lake', lake],
    env: { FLEETSYNC_PORT: '0', FLEETSYNC_LOG_LEVEL: 'error' },
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    stopSignal: stop.signal,
  });
  for (let i = 0; i < 200 && !/http:\/\/\S+/.test(out); i++) await new Promise((r) => setTimeout(r, 25));
  const url = /http:\/\/\S+/.exec(out)?.[0];
  if (!url) throw new Error(`serve --lake did not start: ${err}`);
  return {
    url: url.replace(/\/$/, ''),
    close: async () => {
      stop.abort();
      return exited;
    },
  };
}

const post = (base: string) =>
  fetch(`${base}/api/service/done`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-fleetsync-request': '1' },
    body: JSON.stringify({ vehicle: 'BOTH', date: '2026-07-18', odometer: 101300 }),
  });

const bothLine = async (base: string) => {
  const res = await fetch(`${base}/api/reports/service_due?vehicle=3`);
  const body = (await res.json()) as { rows: Record<string, unknown>[] };
  return body.rows[0];
};

describe('serve --lake and a service done', () => {
  it.each([
    ['with service records in the lake', 0, '2026-06-10'],
    ['with none', 1, null],
  ])('%s: refused, saying where to record it; nothing changes', async (_name, i, lastDay) => {
    const srv = await serveLake(lakes[i]!);
    try {
      const before = await bothLine(srv.url);
      expect(before).toMatchObject({ last_service_day: lastDay });
      const res = await post(srv.url);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { message: string; forcible: boolean };
      expect(body.forcible).toBe(false);
      expect(body.message).toContain('service not recorded: serve --lake shows the lake read-only');
      expect(body.message).toContain(`FLEETSYNC_DB=<FLEETSYNC_DATA_DIR>/accounts/${ACCOUNT}.duckdb`);
      expect(await bothLine(srv.url)).toEqual(before);
    } finally {
      expect(await srv.close()).toBe(0);
    }
  });
});
