/**
 * Alerts, /healthz and /metrics under `serve` (startServer, as `fleetsync serve` runs it), with a
 * real webhook receiver and a real SMTP server on port 0, the simulator over HTTP and the
 * injected clock. Scheduled runs (every second) fail while the simulator's vehicle payload lacks
 * a field: exactly one webhook POST and one e-mail however many runs fail, also across a restart
 * of the server; /healthz is 503 meanwhile; one "recovered" each after the next good run. Stale
 * data (no new complete day for FLEETSYNC_STALE_HOURS) alerts once too, and /metrics parses as
 * Prometheus text with counters equal to the runs table.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Env } from '../../src/config.ts';
import { memoryLogger } from '../../src/log.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { addDays } from '../../src/time.ts';
import { syncAccount } from '../../src/wiring.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';
import {
  parsePrometheus,
  sample,
  startSmtpReceiver,
  startWebhookReceiver,
  type SmtpReceiver,
  type WebhookReceiver,
} from '../helpers/receivers.ts';

const SMTP_PASSWORD = 'smtp-Pa55word-xyzzy';
const HOOK_TOKEN = 'T0KEN-in-the-webhook-path-4242';
const HOUR = 3_600_000;

let h: Harness;
let hook: WebhookReceiver;
let smtp: SmtpReceiver;
let env: Env;
const log = memoryLogger('debug');

beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 3, days: 10 } });
  // The history synced before the server starts: the scheduled runs under test re-pull the
  // snapshots and the open windows. A first sync in the first scheduled run waits out the
  // simulator's rate-limit windows (real seconds), which took longer than the alert's wait at load 25.
  expect((await h.sync()).outcome).toBe('ok');
  hook = await startWebhookReceiver();
  smtp = await startSmtpReceiver(SMTP_PASSWORD);
  env = {
    FLEETSYNC_ACCOUNT: ACCOUNT,
    FLEET_TIMEZONE: h.fleet.timezone,
    FLEETSYNC_ALERT_WEBHOOK: `${hook.url}/services/${HOOK_TOKEN}`,
    FLEETSYNC_SMTP_URL: `smtp://alerts:${SMTP_PASSWORD}@127.0.0.1:${smtp.port}`,
    FLEETSYNC_ALERT_EMAIL: 'fleet-ops@example.com',
    FLEETSYNC_ALERT_FROM: 'fleetsync@example.com',
    FLEETSYNC_STALE_HOURS: '48',
  };
}, 60_000);
afterAll(async () => {
  await hook?.close();
  await smtp?.close();
  await h?.close();
});

async function rows(sql: string): Promise<Record<string, unknown>[]> {
  const con = await h.db.connect();
  try {
    return (await con.runAndReadAll(sql)).getRowObjectsJS();
  } finally {
    con.closeSync();
  }
}

const outcomes = async () =>
  (await rows("SELECT outcome FROM runs WHERE outcome <> 'running' ORDER BY started_at")).map((r) =>
    String(r.outcome),
  );

/**
 * A server as `serve` starts it: every-second schedule over the simulator, alerts on. The alerts
 * are checked after every run and at start; the timer's check (`checkMs`, for what no run
 * brings: stale data) is every second, and every 100 ms where the clock's passing is the test.
 */
async function serve(extra: Env = {}, checkMs = 1000): Promise<RunningServer> {
  return startServer({
    db: h.db,
    config: loadConfig({ ...env, FLEETSYNC_SCHEDULE: '* * * * * *', ...extra }),
    log,
    now: h.now,
    port: 0,
    alertCheckMs: checkMs,
    runSync: (trigger) =>
      (inflight = syncAccount(h.deps, { trigger, fromDay: h.firstDay, toDay: h.lastDay })),
  });
}

let inflight: Promise<unknown> = Promise.resolve();
/** Stops a server and waits for the run it may have started. */
async function stop(s: RunningServer) {
  await s.close();
  await inflight.catch(() => undefined);
}

async function get(s: RunningServer, path: string) {
  const res = await fetch(new URL(path, s.url));
  return { status: res.status, text: await res.text() };
}

/** Waits until `n` more finished runs are in the table than `before`. */
async function runsAfter(before: number, n: number) {
  await expect
    .poll(async () => (await outcomes()).length, { timeout: 30_000, interval: 100 })
    .toBeGreaterThanOrEqual(before + n);
}

describe('alerts under serve', () => {
  it('a failing scheduled run: one webhook POST and one e-mail, 503 on /healthz, one "recovered" after a good run', async () => {
    h.sim.setFaults({ fieldFault: { kind: 'vehicle', field: 'registration' } });
    const synced = (await outcomes()).length; // beforeAll's sync
    let s = await serve();
    try {
      await expect.poll(() => hook.posts.length, { timeout: 30_000, interval: 100 }).toBe(1);
      await expect.poll(() => smtp.mails.length, { timeout: 10_000, interval: 100 }).toBe(1);
      const first = await outcomes();
      expect(first[synced]).toBe('partial');

      const alert = hook.posts[0]!;
      expect(alert.path).toBe(`/services/${HOOK_TOKEN}`);
      expect(alert.body.text).toMatch(
        new RegExp(
          `the sync of account ${ACCOUNT} was partial: 1 window\\(s\\) or snapshot\\(s\\) failed \\(first: vehicles snapshot: E_PAYLOAD`,
        ),
      );
      expect(alert.body.fleetsync).toEqual({ account: ACCOUNT, incident: 'run', state: 'open' });
      const mail = smtp.mails[0]!;
      expect(mail.to).toEqual(['fleet-ops@example.com']);
      expect(mail.from).toBe('fleetsync@example.com');
      expect(mail.user).toBe('alerts');
      expect(mail.raw).toMatch(/Subject: fleetsync: the sync of account test was partial/);

      const health = await get(s, '/healthz');
      expect(health.status).toBe(503);
      expect(JSON.parse(health.text).reasons).toEqual([
        expect.stringMatching(new RegExp(`account ${ACCOUNT}: the last run \\S+ was partial`)),
      ]);

      // More failing runs, then a restart of the server with the incident open: still one alert.
      const seen = (await outcomes()).length;
      await runsAfter(seen, 2);
      await stop(s);
      s = await serve();
      await runsAfter((await outcomes()).length, 2);
      expect((await outcomes()).filter((o) => o === 'partial').length).toBeGreaterThanOrEqual(5);
      expect(hook.posts).toHaveLength(1);
      expect(smtp.mails).toHaveLength(1);
      expect((await get(s, '/healthz')).status).toBe(503);

      // The API is fixed: the next good run clears the incident, once.
      h.sim.setFaults({});
      await expect.poll(() => hook.posts.length, { timeout: 30_000, interval: 100 }).toBe(2);
      await expect.poll(() => smtp.mails.length, { timeout: 10_000, interval: 100 }).toBe(2);
      expect(hook.posts[1]!.body.text).toMatch(
        new RegExp(`^fleetsync: recovered: the sync of account ${ACCOUNT} is ok again \\(run \\S+, ended`),
      );
      expect(hook.posts[1]!.body.fleetsync).toEqual({
        account: ACCOUNT,
        incident: 'run',
        state: 'recovered',
      });
      expect(smtp.mails[1]!.raw).toMatch(
        /Subject: fleetsync: recovered: the sync of account test is ok again/,
      );
      const healthy = await get(s, '/healthz');
      expect(healthy.status, healthy.text).toBe(200);
      expect(JSON.parse(healthy.text)).toMatchObject({ status: 'ok', reasons: [] });
      await runsAfter((await outcomes()).length, 2);
      expect(hook.posts).toHaveLength(2);
      expect(smtp.mails).toHaveLength(2);
    } finally {
      await stop(s);
      h.sim.setFaults({});
    }

    // No secret anywhere: log lines, alert texts, the database file.
    const everything = [
      log.lines.join('\n'),
      JSON.stringify(hook.posts),
      smtp.mails.map((x) => x.raw).join('\n'),
    ];
    for (const text of everything) {
      expect(text).not.toContain(SMTP_PASSWORD);
      expect(text.replaceAll(`/services/${HOOK_TOKEN}`, '')).not.toContain(HOOK_TOKEN);
    }
    await rows('FORCE CHECKPOINT');
    const file = readFileSync(h.dbPath).toString('latin1');
    expect(file).not.toContain(SMTP_PASSWORD);
    expect(file).not.toContain(HOOK_TOKEN);
  }, 120_000);

  it('/metrics parses as Prometheus text; its counters equal the runs table and the ledger', async () => {
    const s = await serve({ FLEETSYNC_SCHEDULE: '' });
    try {
      expect((await get(s, '/api/reports/mileage')).status).toBe(200);
      expect((await get(s, '/api/reports/mileage.csv')).status).toBe(200);
      const m = await get(s, '/metrics');
      expect(m.status).toBe(200);
      const { types, samples } = parsePrometheus(m.text);
      expect(types).toMatchObject({
        fleetsync_runs_total: 'counter',
        fleetsync_api_requests_total: 'counter',
        fleetsync_api_retries_total: 'counter',
        fleetsync_windows: 'gauge',
        fleetsync_data_freshness_seconds: 'gauge',
        fleetsync_last_run_duration_seconds: 'gauge',
        fleetsync_report_duration_seconds: 'histogram',
      });
      const table = await rows(
        "SELECT outcome, count(*)::INTEGER AS n FROM runs WHERE outcome <> 'running' GROUP BY outcome",
      );
      expect(table.map((r) => r.outcome).sort()).toEqual(['ok', 'partial']);
      const shown = samples.filter((x) => x.name === 'fleetsync_runs_total');
      expect(shown).toHaveLength(table.length);
      for (const r of table)
        expect(
          sample(samples, 'fleetsync_runs_total', { account: ACCOUNT, outcome: String(r.outcome) }),
        ).toBe(Number(r.n));
      const sums = (
        await rows(
          "SELECT sum(requests)::INTEGER AS q, sum(retries)::INTEGER AS r FROM runs WHERE outcome <> 'running'",
        )
      )[0]!;
      expect(sample(samples, 'fleetsync_api_requests_total', { account: ACCOUNT })).toBe(Number(sums.q));
      expect(sample(samples, 'fleetsync_api_retries_total', { account: ACCOUNT })).toBe(Number(sums.r));
      // By rate bucket: the runs table's per-bucket JSON, and together the run totals.
      const buckets = await rows(
        "SELECT b.bucket, sum(CAST(r.requests_by_bucket ->> b.bucket AS INTEGER))::INTEGER AS n FROM runs AS r, unnest(json_keys(r.requests_by_bucket)) AS b(bucket) WHERE r.outcome <> 'running' GROUP BY ALL",
      );
      expect(buckets.map((b) => b.bucket)).toContain('default');
      let inBuckets = 0;
      for (const b of buckets) {
        const shownN = sample(samples, 'fleetsync_api_bucket_requests_total', {
          account: ACCOUNT,
          bucket: String(b.bucket),
        });
        expect(shownN).toBe(Number(b.n));
        inBuckets += shownN ?? 0;
      }
      expect(inBuckets).toBe(Number(sums.q));
      for (const w of await rows('SELECT stream, status, count(*)::INTEGER AS n FROM ledger GROUP BY ALL'))
        expect(
          sample(samples, 'fleetsync_windows', {
            account: ACCOUNT,
            stream: String(w.stream),
            status: String(w.status),
          }),
        ).toBe(Number(w.n));
      const last = (
        await rows(
          "SELECT outcome, epoch(ended_at) - epoch(started_at) AS s FROM runs WHERE outcome <> 'running' ORDER BY started_at DESC LIMIT 1",
        )
      )[0]!;
      expect(
        sample(samples, 'fleetsync_last_run_outcome', { account: ACCOUNT, outcome: String(last.outcome) }),
      ).toBe(1);
      expect(sample(samples, 'fleetsync_last_run_duration_seconds', { account: ACCOUNT })).toBeCloseTo(
        Number(last.s),
        2,
      );
      const through = Date.parse(JSON.parse((await get(s, '/api/status')).text).complete_through as string);
      expect(sample(samples, 'fleetsync_data_freshness_seconds', { account: ACCOUNT })).toBeCloseTo(
        (h.now() - through) / 1000,
        -1,
      );
      expect(
        sample(samples, 'fleetsync_report_duration_seconds_count', { report: 'mileage', format: 'json' }),
      ).toBe(1);
      expect(
        sample(samples, 'fleetsync_report_duration_seconds_count', { report: 'mileage', format: 'csv' }),
      ).toBe(1);
    } finally {
      await stop(s);
    }
  }, 60_000);

  it('stale data: one alert when no new complete day arrived for FLEETSYNC_STALE_HOURS, one "recovered" when one does', async () => {
    const posts = hook.posts.length;
    // No schedule: the server's own check (every 100 ms here) notices the clock passing 48 h.
    const s = await serve({ FLEETSYNC_SCHEDULE: '' }, 100);
    try {
      await expect.poll(async () => (await get(s, '/healthz')).status, { timeout: 5_000 }).toBe(200);
      h.advance(47 * HOUR);
      await new Promise((r) => setTimeout(r, 500));
      expect(hook.posts.length).toBe(posts);
      h.advance(2 * HOUR);
      await expect.poll(() => hook.posts.length, { timeout: 10_000, interval: 100 }).toBe(posts + 1);
      expect(hook.posts[posts]!.body.text).toMatch(
        new RegExp(
          `the data of account ${ACCOUNT} is stale: no new complete day for 49 h \\(complete through .*FLEETSYNC_STALE_HOURS=48\\)`,
        ),
      );
      const health = await get(s, '/healthz');
      expect(health.status).toBe(503);
      expect(health.text).toContain('data is stale: no new complete day for 49 h');
      await new Promise((r) => setTimeout(r, 500));
      expect(hook.posts.length).toBe(posts + 1);

      // A sync that completes two more days (empty days after the fleet's history): recovered.
      const r = await syncAccount(h.deps, {
        trigger: 'api',
        fromDay: h.firstDay,
        toDay: addDays(h.lastDay, 2),
      });
      expect(r.outcome).toBe('ok');
      await expect.poll(() => hook.posts.length, { timeout: 10_000, interval: 100 }).toBe(posts + 2);
      expect(hook.posts[posts + 1]!.body.text).toMatch(
        /^fleetsync: recovered: the data of account test is complete through/,
      );
      expect((await get(s, '/healthz')).status).toBe(200);
    } finally {
      await stop(s);
    }
  }, 60_000);
});
