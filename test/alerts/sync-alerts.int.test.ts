/**
 * Alerts from a plain `fleetsync sync` (a system timer, no server): one webhook POST per incident
 * across failing runs, a webhook that answers 500 is logged (host only, no token) and does not
 * change the exit code, and the "recovered" it missed is sent on the next run. A release note that
 * changes an endpoint the sync uses alerts once, and once more when it is acknowledged. Bad alert
 * settings are refused with exit 2 naming them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RELEASES } from '../../src/simulator/changelog.ts';
import { runMain } from '../helpers/cli.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/receivers.ts';
import { harnessCliEnv, startHarness, type Harness } from '../helpers/synced.ts';

const TOKEN = 'hook-secret-0123456789';
let h: Harness;
let hook: WebhookReceiver;
let env: Record<string, string>;

beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 3, days: 10 } });
  hook = await startWebhookReceiver();
  env = harnessCliEnv(h, { FLEETSYNC_ALERT_WEBHOOK: `${hook.url}/hooks/${TOKEN}?token=${TOKEN}` });
}, 60_000);
afterAll(async () => {
  await hook?.close();
  await h?.close();
});

const sync = () => runMain(env, 'sync', '--from', h.firstDay, '--to', h.lastDay);
const texts = () => hook.posts.map((p) => p.body.text);

describe('alerts from fleetsync sync', () => {
  it('one alert per incident; a failing webhook is logged, never fails the sync, and is retried', async () => {
    h.sim.setFaults({ fieldFault: { kind: 'vehicle', field: 'registration' } });
    expect((await sync()).code).toBe(3);
    expect(texts()).toEqual([expect.stringMatching(/^fleetsync: the sync of account test was partial/)]);
    const again = await sync();
    expect(again.code).toBe(3);
    expect(hook.posts).toHaveLength(1);

    h.sim.setFaults({});
    hook.status = 500;
    const good = await sync();
    expect(good.code, good.stderr).toBe(0);
    expect(hook.posts).toHaveLength(2); // tried, refused
    expect(good.stderr).toMatch(
      new RegExp(
        `warn +alert channel failed .*channel="webhook ${hook.url.replace(/[/.]/g, '\\$&')}".*answered HTTP 500`,
      ),
    );
    expect(good.stderr).not.toContain(TOKEN);

    hook.status = 200;
    expect((await sync()).code).toBe(0);
    expect(texts().slice(2)).toEqual([
      expect.stringMatching(/^fleetsync: recovered: the sync of account test is ok again/),
    ]);
    expect((await sync()).code).toBe(0);
    expect(hook.posts).toHaveLength(3);
  }, 120_000);

  it('a release note that changes an endpoint the sync uses: one alert, and one when acknowledged', async () => {
    const before = hook.posts.length;
    h.sim.setReleases([
      ...DEFAULT_RELEASES,
      {
        version: '1.26.1120.1',
        date: '2026-11-20',
        notes: [
          {
            section: 'Breaking Changes',
            text: '`GET /trips` now requires `filter[vehicle_id]`.',
            endpoints: ['GET /trips'],
            area: 'Trips',
          },
        ],
      },
    ]);
    expect((await sync()).code).toBe(0);
    expect((await sync()).code).toBe(0);
    expect(texts().slice(before)).toEqual([
      "fleetsync: the API's release notes 1.26.1120.1 (breaking) change endpoints the sync uses: GET /trips. " +
        '`GET /trips` now requires `filter[vehicle_id]`. Acknowledge with `fleetsync changes --ack` or on the dashboard.',
    ]);
    expect(hook.posts.at(-1)!.body.fleetsync).toEqual({
      account: '*',
      incident: 'api_change:1.26.1120.1',
      state: 'open',
    });
    const ack = await runMain(env, 'changes', '--ack');
    expect(ack.code, ack.stderr).toBe(0);
    expect((await sync()).code).toBe(0);
    expect(texts().slice(before + 1)).toEqual([
      'fleetsync: acknowledged: the API release notes 1.26.1120.1 no longer need attention.',
    ]);
  }, 120_000);

  it('a database that cannot be opened: the sync alerts from the state file, status exits 1 naming why', async () => {
    const broken = { ...env, FLEETSYNC_DB: join(h.dir, 'broken.duckdb') };
    writeFileSync(broken.FLEETSYNC_DB, 'this is not a DuckDB file, but a user left it here');
    const before = hook.posts.length;
    const run = await runMain(broken, 'sync', '--from', h.firstDay, '--to', h.lastDay);
    expect(run.code).toBe(1);
    expect(texts().slice(before)).toEqual([
      expect.stringMatching(
        /^fleetsync: the sync of account test failed: E_DB: cannot open the database .*broken\.duckdb/,
      ),
    ]);
    const status = await runMain(broken, 'status');
    expect(status.code).toBe(1);
    expect(status.stderr).toMatch(
      /state file: account test: run not started failed: E_DB: cannot open the database/,
    );
    // Once per incident: the same refusal again sends nothing.
    expect((await runMain(broken, 'sync', '--from', h.firstDay, '--to', h.lastDay)).code).toBe(1);
    expect(hook.posts).toHaveLength(before + 1);
  });

  it('refuses alert settings that cannot work, naming each (exit 2)', async () => {
    const bad = await runMain(
      {
        ...env,
        FLEETSYNC_ALERT_WEBHOOK: 'hooks.slack.com/services/x',
        FLEETSYNC_SMTP_URL: 'http://mail.example.com',
        FLEETSYNC_STALE_HOURS: '0x10',
      },
      'sync',
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('FLEETSYNC_ALERT_WEBHOOK: must be an http(s) URL');
    expect(bad.stderr).toContain('FLEETSYNC_SMTP_URL: must be an smtp:// or smtps:// URL');
    expect(bad.stderr).toContain('FLEETSYNC_ALERT_EMAIL: required with FLEETSYNC_SMTP_URL');
    expect(bad.stderr).toContain('FLEETSYNC_STALE_HOURS: must be a whole number of hours');
    const noServer = await runMain({ ...env, FLEETSYNC_ALERT_EMAIL: 'ops@example.com' }, 'sync');
    expect(noServer.code).toBe(2);
    expect(noServer.stderr).toContain('FLEETSYNC_SMTP_URL: required with FLEETSYNC_ALERT_EMAIL');
  });
});
