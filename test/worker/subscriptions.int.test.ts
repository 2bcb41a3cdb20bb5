/**
 * Worker mode sends subscriptions: after a completed sync job, the account's due subscription goes
 * out from the account's own file through a real SMTP server (port 0), once; a second job in the
 * same slot sends nothing. The job is run directly (`syncAccountJob`, no Postgres: the queue is not
 * what is tested) against a simulator of two vehicles and three days, on an injected clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { memoryLogger } from '../../src/log.ts';
import { checkSubscriptions } from '../../src/reports/subscription-file.ts';
import { generateFleet } from '../../src/simulator/generate.ts';
import type { Fleet } from '../../src/simulator/model.ts';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.ts';
import { openDatabase } from '../../src/store/db.ts';
import { syncAccountJob, type JobDeps } from '../../src/worker/jobs.ts';
import { parseCsv } from '../helpers/report-fixture.ts';
import { parseMail } from '../helpers/mail.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../helpers/receivers.ts';

const PASSWORD = 'w0rker-Mail';
let dir: string;
let fleet: Fleet;
let sim: SimulatorHandle;
let smtp: SmtpReceiver;
// 21 April 2026 07:30 in Sydney (AEST, +10): the 07:00 slot of a daily subscription has passed
const NOW = Date.parse('2026-04-20T21:30:00Z');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-worker-subs-'));
  fleet = generateFleet({
    seed: 11,
    vehicles: 2,
    days: 3,
    endDay: '2026-04-20',
    timezone: 'Australia/Sydney',
  });
  sim = await startSimulator({ fleet, windowMs: 1000, now: () => NOW });
  smtp = await startSmtpReceiver(PASSWORD);
});
afterAll(async () => {
  await sim?.close();
  await smtp?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('worker mode: subscriptions', () => {
  it('a completed job sends the due subscription of its account once, recorded in its file', async () => {
    const config = loadConfig({
      FLEETSYNC_DB: join(dir, 'fleet.duckdb'),
      FLEETSYNC_DATA_DIR: dir,
      FLEET_TIMEZONE: fleet.timezone,
      FLEETSYNC_RATE_WINDOW_MS: '1000',
      FLEETSYNC_SMTP_URL: `smtp://alerts:${PASSWORD}@127.0.0.1:${smtp.port}`,
      FLEETSYNC_SUBSCRIPTIONS: join(dir, 'unused.json'),
    });
    const { subscriptions, problems } = checkSubscriptions(
      JSON.stringify({
        subscriptions: [
          {
            name: 'daily-mileage',
            account: 'fleet-a',
            report: 'mileage',
            period: 'yesterday',
            format: 'csv',
            to: ['depot@example.com'],
            schedule: '0 7 * * *',
          },
          // another account's: not this job's to send
          {
            name: 'other-account',
            account: 'fleet-b',
            report: 'mileage',
            period: 'yesterday',
            format: 'csv',
            to: ['b@example.com'],
            schedule: '0 7 * * *',
          },
        ],
      }),
    );
    expect(problems).toEqual([]);
    const log = memoryLogger('info');
    const deps: JobDeps = {
      config,
      accounts: [
        {
          account: 'fleet-a',
          baseUrl: sim.baseUrl,
          username: 'demo',
          password: 'demo-main',
          timezone: fleet.timezone,
          changelogUrl: null,
        },
      ],
      settings: { ...config.worker, queueUrl: 'postgres://unused@127.0.0.1/none', lakeDir: null },
      log,
      signal: new AbortController().signal,
      now: () => NOW,
      subscriptions,
    };
    const job = { account: 'fleet-a', fromDay: '2026-04-18', toDay: '2026-04-20' };
    await syncAccountJob(deps, job, 'job-1');
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]!.to).toEqual(['depot@example.com']);
    const mail = parseMail(smtp.mails[0]!.raw);
    // 20 April ended 7.5 h before: its windows are still open for late data, so not settled yet
    expect(mail.subject).toBe('fleetsync fleet-a: Mileage per vehicle and month, 2026-04-20 (partial)');
    expect(mail.text).toContain(
      'PARTIAL: the data is complete through 17 Apr 2026 (local); the period ends 2026-04-20, so later days may still change; ' +
        "Mileage per vehicle and month: 0.0 % of the period's vehicle-days synced (2 of 2 rows partial or not synced).",
    );
    expect(mail.attachments.map((a) => a.name)).toEqual(['mileage_2026-04-20.csv']);
    // one row per vehicle of the simulator
    const rows = parseCsv(mail.attachments[0]!.data.toString('utf8').replace(/^\uFEFF/, ''));
    expect(rows.length - 1).toBe(fleet.vehicles.length);

    // the same slot again (another job, a minute later): not sent twice
    await syncAccountJob({ ...deps, now: () => NOW + 60_000 }, job, 'job-2');
    expect(smtp.mails).toHaveLength(1);
    const db = await openDatabase(join(dir, 'accounts', 'fleet-a.duckdb'));
    try {
      const con = await db.connect();
      const sent = (
        await con.runAndReadAll(
          'SELECT subscription, epoch_ms(slot_at)::DOUBLE AS slot_ms, period_from::VARCHAR AS day, trigger FROM subscription_sends',
        )
      ).getRowObjectsJS();
      con.closeSync();
      expect(sent).toEqual([
        {
          subscription: 'daily-mileage',
          slot_ms: Date.parse('2026-04-20T21:00:00Z'),
          day: '2026-04-20',
          trigger: 'schedule',
        },
      ]);
    } finally {
      db.close();
    }
  });
});
