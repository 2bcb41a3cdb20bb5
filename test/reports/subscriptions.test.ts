/**
 * Subscriptions against a real SMTP server (smtp-server on port 0) and the hand-filled Sydney
 * database (March complete once `settleMarch`, April not; report-fixture.ts), on an injected clock:
 * `serve` sends a due subscription at start with the right attachments, records it, does not send
 * it again after a restart (database closed and opened again), sends April marked partial with the
 * reason, waits for a complete period until its deadline when told to; `send-report` sends a
 * subscription or an ad hoc report now and lists them; a bad subscriptions file is refused with
 * every problem named and nothing sent or stored.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.ts';
import { memoryLogger } from '../../src/log.ts';
import { exportReport } from '../../src/reports/export.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport } from '../../src/reports/run.ts';
import { checkSubscriptions, type Subscription } from '../../src/reports/subscription-file.ts';
import { subscriptionTick } from '../../src/reports/subscriptions.ts';
import { startServer } from '../../src/server/start.ts';
import { openDatabase } from '../../src/store/db.ts';
import { runMain } from '../helpers/cli.ts';
import { parseMail, xlsxRows } from '../helpers/mail.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../helpers/receivers.ts';
import {
  ACCOUNT,
  T,
  ZONE,
  openFixture,
  parseCsv,
  settleMarch,
  type FixtureDb,
} from '../helpers/report-fixture.ts';

const PASSWORD = 's3cret-Sub';
let fx: FixtureDb;
let smtp: SmtpReceiver;
let env: Record<string, string>;
let config: Readonly<Config>;
const log = memoryLogger('debug');
const dbPath = () => join(fx.dir, 'fleet.duckdb');

const FILE = `{
  "subscriptions": [
    { "name": "monthly-mileage", "report": "mileage", "period": "last-month", "format": "both",
      "to": ["fleet@example.com", "finance@example.com"], "schedule": "0 7 1 * *" },
    { "name": "fuel-when-complete", "report": "fuel", "period": "last-month", "format": "xlsx",
      "to": ["finance@example.com"], "schedule": "0 7 1 * *", "if_incomplete": "wait", "wait_hours": 48 }
  ]
}
`;
let subs: Subscription[];

beforeAll(async () => {
  fx = await openFixture();
  await settleMarch(fx.con);
  smtp = await startSmtpReceiver(PASSWORD);
  writeFileSync(join(fx.dir, 'subscriptions.json'), FILE);
  env = {
    FLEETSYNC_ACCOUNT: ACCOUNT,
    FLEET_TIMEZONE: ZONE,
    FLEETSYNC_DB: dbPath(),
    FLEETSYNC_SMTP_URL: `smtp://alerts:${PASSWORD}@127.0.0.1:${smtp.port}`,
    FLEETSYNC_SUBSCRIPTIONS: join(fx.dir, 'subscriptions.json'),
  };
  config = loadConfig(env);
  const checked = checkSubscriptions(FILE);
  expect(checked.problems).toEqual([]);
  subs = checked.subscriptions;
});
afterAll(async () => {
  await smtp?.close();
  fx?.close();
});

/** The CSV export of `name` for `month` (by month, not by days: the period is resolved independently). */
async function monthCsv(name: string, month: string, nowIso: string): Promise<string[][]> {
  const def = requireReport(name);
  const scope = { account: ACCOUNT, zone: ZONE, nowMs: T(nowIso) };
  const out = join(fx.dir, `${name}-${month}-${Date.parse(nowIso)}.csv`);
  await exportReport(fx.con, def, scope, parseReportParams({ month }, def, scope), 'csv', out, {
    manifest: false,
  });
  return parseCsv(readFileSync(out, 'utf8').replace(/^\uFEFF/, ''));
}

const sends = async () =>
  (
    await fx.con.runAndReadAll(
      `SELECT subscription, report, epoch_ms(slot_at)::DOUBLE AS slot_ms, period_from::VARCHAR AS period_from,
              period_to::VARCHAR AS period_to, formats, recipients, rows::INTEGER AS rows,
              complete_through::VARCHAR AS complete_through, partial, reason, trigger, message_id
       FROM subscription_sends ORDER BY sent_at, subscription`,
    )
  ).getRowObjectsJS();

async function serveAt(nowIso: string) {
  const srv = await startServer({
    db: fx.db,
    config,
    log,
    now: () => T(nowIso),
    port: 0,
    schedule: null,
    subscriptions: subs,
  });
  await srv.subscriptionsChecked();
  return srv;
}

describe('subscriptions by e-mail', () => {
  // 1 April 07:00 in Sydney (AEDT, +11) is 2026-03-31T20:00Z; the server starts five minutes later.
  const APR1_0705 = '2026-03-31T20:05:00Z';

  it('serve sends a due subscription at start: the right period and attachments, recorded', async () => {
    const srv = await serveAt(APR1_0705);
    await srv.close();
    // monthly-mileage goes out; fuel-when-complete too: March is complete (nothing to wait for)
    expect(smtp.mails).toHaveLength(2);
    const byName = new Map(smtp.mails.map((m) => [parseMail(m.raw).subject, m]));
    const mileageMail = byName.get(
      `fleetsync ${ACCOUNT}: Mileage per vehicle and month, 2026-03-01 to 2026-03-31`,
    );
    expect(mileageMail).toBeDefined();
    expect(mileageMail!.to).toEqual(['fleet@example.com', 'finance@example.com']);
    const mail = parseMail(mileageMail!.raw);
    expect(mail.attachments.map((a) => a.name)).toEqual([
      'mileage_2026-03-01_2026-03-31.csv',
      'mileage_2026-03-01_2026-03-31.xlsx',
    ]);
    // the CSV attachment is the month's export, row for row (3 vehicles); the XLSX holds the same rows
    const expected = await monthCsv('mileage', '2026-03', APR1_0705);
    const got = parseCsv(mail.attachments[0]!.data.toString('utf8').replace(/^\uFEFF/, ''));
    expect(got).toEqual(expected);
    expect(got.length - 1).toBe(3);
    expect(xlsxRows(mail.attachments[1]!.data)).toHaveLength(3);
    expect(mail.text).toContain('Complete: complete through 31 Mar 2026 (local).');
    expect(mail.text).toContain('Subscription monthly-mileage, scheduled 2026-04-01 07:00');
    expect(mail.text).toContain('Blank cells in the attachments are unknown');
    const fuelMail = parseMail(
      byName.get(`fleetsync ${ACCOUNT}: Fuel used per vehicle and month, 2026-03-01 to 2026-03-31`)!.raw,
    );
    expect(fuelMail.attachments.map((a) => a.name)).toEqual(['fuel_2026-03-01_2026-03-31.xlsx']);

    const rows = await sends();
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.subscription === 'monthly-mileage')).toMatchObject({
      report: 'mileage',
      slot_ms: T('2026-03-31T20:00:00Z'),
      period_from: '2026-03-01',
      period_to: '2026-03-31',
      formats: 'csv, xlsx',
      recipients: 'fleet@example.com, finance@example.com',
      rows: 3,
      complete_through: '2026-03-31',
      partial: false,
      reason: null,
      trigger: 'schedule',
    });
  });

  it('a restart (the database closed and opened again) does not send the same slot twice', async () => {
    fx.con.closeSync();
    fx.db.close();
    fx.db = await openDatabase(dbPath());
    fx.con = await fx.db.connect();
    const srv = await serveAt('2026-03-31T20:30:00Z');
    await srv.close();
    // and a day later, still within the catch-up window of the same slot
    const later = await subscriptionTick(
      { db: fx.db, config, log, now: () => T('2026-04-01T19:00:00Z') },
      subs,
    );
    expect(later).toEqual([]);
    expect(smtp.mails).toHaveLength(2);
    expect(await sends()).toHaveLength(2);
  });

  it('an incomplete period goes out marked partial with the reason; "wait" holds it until its deadline', async () => {
    // 1 May 07:00 in Sydney (AEST, +10) is 2026-04-30T21:00Z. April is complete through 31 March only.
    const deps = (iso: string) => ({ db: fx.db, config, log, now: () => T(iso) });
    const first = await subscriptionTick(deps('2026-04-30T21:01:00Z'), subs);
    expect(first.map((s) => [s.subscription, s.partial])).toEqual([['monthly-mileage', true]]);
    const mail = parseMail(smtp.mails.at(-1)!.raw);
    expect(mail.subject).toBe(
      `fleetsync ${ACCOUNT}: Mileage per vehicle and month, 2026-04-01 to 2026-04-30 (partial)`,
    );
    // vehicle 1 settled all 30 days, vehicle 2 1–11 April, vehicle 3 none: (30 + 11 + 0) / 90 = 45.6 %
    expect(mail.text).toContain(
      'PARTIAL: the data is complete through 31 Mar 2026 (local); the period ends 2026-04-30, so later days may still change; ' +
        "Mileage per vehicle and month: 45.6 % of the period's vehicle-days synced (2 of 3 rows partial or not synced).",
    );
    expect(mail.attachments).toHaveLength(2);

    // fuel waits 48 h: not at 2 May 07:00, not at 3 May 06:59 local; at 3 May 07:01 it goes out partial
    expect(await subscriptionTick(deps('2026-05-01T21:00:00Z'), subs)).toEqual([]);
    expect(await subscriptionTick(deps('2026-05-02T20:59:00Z'), subs)).toEqual([]);
    const late = await subscriptionTick(deps('2026-05-02T21:01:00Z'), subs);
    expect(late.map((s) => [s.subscription, s.partial])).toEqual([['fuel-when-complete', true]]);
    expect(parseMail(smtp.mails.at(-1)!.raw).text).toContain(
      "Fuel used per vehicle and month: 0.0 % of the period's vehicle-days synced (3 of 3 rows partial or not synced).",
    );
    expect(await subscriptionTick(deps('2026-05-02T21:30:00Z'), subs)).toEqual([]);
    expect(smtp.mails).toHaveLength(4);
    const rows = await sends();
    expect(rows.slice(2).map((r) => [r.subscription, r.period_from, r.partial, r.complete_through])).toEqual([
      ['monthly-mileage', '2026-04-01', true, '2026-03-31'],
      ['fuel-when-complete', '2026-04-01', true, '2026-03-31'],
    ]);
    expect(rows[2]!.reason).toContain('45.6 %');
  });

  it('a slot missed by more than the catch-up window (24 h) is not sent; within it, once', async () => {
    const entry = (name: string, period: string, schedule: string) => ({
      name,
      report: 'kpis',
      period,
      format: 'csv',
      to: ['ops@example.com'],
      schedule,
    });
    const { subscriptions: some, problems } = checkSubscriptions(
      JSON.stringify({
        subscriptions: [
          entry('weekly-kpis', 'last-week', '0 7 * * 1'),
          entry('daily-kpis', 'yesterday', '0 7 * * *'),
        ],
      }),
    );
    expect(problems).toEqual([]);
    const [weekly, daily] = some as [Subscription, Subscription];
    const deps = (iso: string) => ({ db: fx.db, config, log, now: () => T(iso) });
    // Monday 6 April 07:00 AEST is 2026-04-05T21:00Z: on Tuesday 07:01 it is 24 h 1 min old → not sent
    expect(await subscriptionTick(deps('2026-04-06T21:01:00Z'), [weekly])).toEqual([]);
    // on Tuesday 06:59 it is still in the window: sent once, for Monday–Sunday of the week before
    const wk = await subscriptionTick(deps('2026-04-06T20:59:00Z'), [weekly]);
    expect(wk.map((s) => [s.slotMs, s.fromDay, s.toDay])).toEqual([
      [T('2026-04-05T21:00:00Z'), '2026-03-30', '2026-04-05'],
    ]);
    expect(await subscriptionTick(deps('2026-04-06T20:59:30Z'), [weekly])).toEqual([]);
    // down since 8 April: at 10 April 08:00 local only that day's 07:00 slot is sent, for 9 April
    const sent = await subscriptionTick(deps('2026-04-09T22:00:00Z'), [daily]);
    expect(sent.map((s) => [s.slotMs, s.fromDay, s.toDay])).toEqual([
      [T('2026-04-09T21:00:00Z'), '2026-04-09', '2026-04-09'],
    ]);
    expect(smtp.mails.at(-1)!.to).toEqual(['ops@example.com']);
    expect(parseMail(smtp.mails.at(-1)!.raw).attachments.map((a) => a.name)).toEqual(['kpis_2026-04-09.csv']);
  });

  it('a wrong SMTP password: not sent, not recorded, logged without the password, tried again at the next check', async () => {
    const bad = loadConfig({
      ...env,
      FLEETSYNC_SMTP_URL: `smtp://alerts:wrong-${PASSWORD}@127.0.0.1:${smtp.port}`,
    });
    const mails = smtp.mails.length;
    const rows = (await sends()).length;
    // 1 June 07:05 in Sydney: both monthly slots are due
    const at = (c: Readonly<Config>) => ({ db: fx.db, config: c, log, now: () => T('2026-05-31T21:05:00Z') });
    expect(await subscriptionTick(at(bad), subs)).toEqual([]);
    expect(smtp.mails.length).toBe(mails);
    expect((await sends()).length).toBe(rows);
    const logged = log.lines.filter((l) => l.includes('subscription not sent'));
    expect(logged.join('\n')).toMatch(
      /subscription monthly-mileage not sent: email smtp:\/\/127\.0\.0\.1:\d+/,
    );
    expect(log.lines.join('\n')).not.toContain(PASSWORD);
    // the password fixed, the next check sends the May mileage (fuel still waits for a complete May)
    const next = await subscriptionTick(at(config), subs);
    expect(next.map((x) => [x.subscription, x.fromDay])).toEqual([['monthly-mileage', '2026-05-01']]);
  });

  it('a bad subscriptions file: serve and send-report refuse it naming every problem; nothing sent or stored', async () => {
    const bad = join(fx.dir, 'bad.json');
    writeFileSync(
      bad,
      `{
  "subscriptions": [
    { "name": "ok-one", "report": "mileage", "period": "last-month", "format": "csv",
      "to": ["a@example.com"], "schedule": "0 7 1 * *" },
    { "name": "Bad Name", "report": "milage", "period": "last-year", "format": "pdf",
      "to": "a@example.com", "schedule": "every day" },
    { "name": "ok-one", "report": "fuel", "period": "yesterday", "format": "xlsx",
      "to": ["not-an-address"], "schedule": "0 7 * * *", "if_incomplete": "wait", "colour": "red" }
  ]
}
`,
    );
    const mailsBefore = smtp.mails.length;
    const rowsBefore = (await sends()).length;
    const err = await startServer({
      db: fx.db,
      config: loadConfig({ ...env, FLEETSYNC_SUBSCRIPTIONS: bad }),
      log,
      now: () => T('2026-05-02T00:00:00Z'),
      port: 0,
      schedule: null,
    }).catch((e: unknown) => e as Error & { code?: string });
    expect(err).toBeInstanceOf(Error);
    const msg = (err as Error).message;
    expect(msg).toContain(`the subscriptions file ${bad} has 10 problems; nothing was sent`);
    for (const p of [
      'line 5 (entry 2, "Bad Name"): name: must be 1–64 lower-case letters',
      'line 5 (entry 2, "Bad Name"): report: "milage" is not a report',
      'line 5 (entry 2, "Bad Name"): period: "last-year" is not one of yesterday, last-week, last-month, month-to-date',
      'line 5 (entry 2, "Bad Name"): format: "pdf" is not one of csv, xlsx, both',
      'line 5 (entry 2, "Bad Name"): to: must be a list of one or more e-mail addresses',
      'line 5 (entry 2, "Bad Name"): schedule: "every day" is not a cron expression of five fields',
      'line 7 (entry 3, "ok-one"): unknown key "colour"',
      'line 7 (entry 3, "ok-one"): to: not an e-mail address: "not-an-address"',
      'line 7 (entry 3, "ok-one"): wait_hours: with if_incomplete "wait", a whole number of hours 1–168',
      'line 7 (entry 3, "ok-one"): name: "ok-one" is already the name of the entry on line 3',
    ])
      expect(msg).toContain(p);

    // the CLI: the database file is its own, so this process lets go of it first
    fx.con.closeSync();
    fx.db.close();
    const cli = await runMain({ ...env, FLEETSYNC_SUBSCRIPTIONS: bad }, 'send-report', 'ok-one');
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('line 7 (entry 3, "ok-one"): to: not an e-mail address');
    const serve = await runMain({ ...env, FLEETSYNC_SUBSCRIPTIONS: bad, FLEETSYNC_PORT: '0' }, 'serve');
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain('line 5 (entry 2, "Bad Name"): report: "milage" is not a report');
    expect(serve.stdout).not.toContain('fleetsync dashboard:');
    // the worker refuses it at start, before it reaches for its queue (nothing listens on port 1)
    const worker = await runMain(
      {
        ...env,
        FLEETSYNC_SUBSCRIPTIONS: bad,
        FLEETSYNC_QUEUE_URL: 'postgres://fleetsync@127.0.0.1:1/queue',
        FLEET_BASE_URL: 'http://127.0.0.1:1/rest',
        FLEET_USERNAME: 'demo',
        FLEET_PASSWORD: 'demo-main',
      },
      'worker',
    );
    expect(worker.code).toBe(2);
    expect(worker.stderr).toContain('line 7 (entry 3, "ok-one"): unknown key "colour"');
    const syntax = join(fx.dir, 'syntax.json');
    writeFileSync(syntax, '{ "subscriptions": [\n  { "name": "x", }\n] }\n');
    const broken = await runMain({ ...env, FLEETSYNC_SUBSCRIPTIONS: syntax }, 'send-report', '--list');
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('line 2: not valid JSON here');
    fx.db = await openDatabase(dbPath());
    fx.con = await fx.db.connect();
    expect(smtp.mails.length).toBe(mailsBefore);
    expect((await sends()).length).toBe(rowsBefore);
  });

  it('send-report: a subscription now, an ad hoc report, and --list with the last sends', async () => {
    fx.con.closeSync();
    fx.db.close();
    const before = smtp.mails.length;
    // the CLI's clock is the real one: its 'last-month' holds no synced data, and says so
    const one = await runMain(env, 'send-report', 'monthly-mileage');
    expect(one.stderr).not.toContain(PASSWORD);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(
      /^sent mileage of acme \(\d{4}-\d{2}-01 to \d{4}-\d{2}-\d{2}\) to fleet@example.com, finance@example.com/,
    );
    const adHoc = await runMain(
      env,
      'send-report',
      '--report',
      'fuel',
      '--period',
      'last-week',
      '--to',
      'boss@example.com',
      '--format',
      'csv',
      '--vehicle',
      '2',
    );
    expect(adHoc.code).toBe(0);
    expect(smtp.mails.length).toBe(before + 2);
    expect(smtp.mails.at(-1)!.to).toEqual(['boss@example.com']);
    const mail = parseMail(smtp.mails.at(-1)!.raw);
    expect(mail.attachments).toHaveLength(1);
    expect(mail.attachments[0]!.name).toMatch(/^fuel_\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}\.csv$/);
    expect(mail.text).toContain(', vehicle 2.');

    const badAdHoc = await runMain(
      env,
      'send-report',
      '--report',
      'fuel',
      '--period',
      'someday',
      '--to',
      'x',
    );
    expect(badAdHoc.code).toBe(2);
    expect(badAdHoc.stderr).toContain('--period: "someday" is not one of');
    expect(badAdHoc.stderr).toContain('--to: not an e-mail address: "x"');

    const listed = await runMain(env, 'send-report', '--list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(
      'monthly-mileage: mileage, last-month, both, to fleet@example.com, finance@example.com, at "0 7 1 * *" (Australia/Sydney)',
    );
    expect(listed.stdout).toContain(
      'fuel-when-complete: fuel, last-month, xlsx, to finance@example.com, at "0 7 1 * *" (Australia/Sydney), waits up to 48 h',
    );
    expect(listed.stdout).toMatch(/last sent .* \(cli\) to fleet@example.com, finance@example.com/);

    // without a mail server: listing still works (and says nothing goes out); sending is refused
    const noMail = Object.fromEntries(Object.entries(env).filter(([k]) => k !== 'FLEETSYNC_SMTP_URL'));
    const listedNoMail = await runMain(noMail, 'send-report', '--list');
    expect(listedNoMail.stderr).toBe('');
    expect(listedNoMail.code).toBe(0);
    expect(listedNoMail.stdout).toContain('monthly-mileage: mileage, last-month, both');
    expect(listedNoMail.stdout).toMatch(/last sent .* \(cli\) to fleet@example.com, finance@example.com/);
    expect(listedNoMail.stdout).toContain('FLEETSYNC_SMTP_URL is not set: none of these is sent until it is');
    expect(listed.stdout).not.toContain('FLEETSYNC_SMTP_URL is not set');
    const sendNoMail = await runMain(noMail, 'send-report', 'monthly-mileage');
    expect(sendNoMail.code).toBe(2);
    expect(sendNoMail.stderr).toContain('FLEETSYNC_SMTP_URL: required with FLEETSYNC_SUBSCRIPTIONS');
    expect(smtp.mails.length).toBe(before + 2);
    // leave the directory for afterAll (fixture close would close the closed handles again)
    fx.close = () => rmSync(fx.dir, { recursive: true, force: true });
  });
});
