/**
 * The month-end pack against a real SMTP server (smtp-server on port 0) and the hand-filled Sydney
 * database: March 2026 is complete (complete through 31 March: here every vehicle-day of March
 * settled for the stream each figure uses: the fixture's March ledger gets the fuel windows and
 * vehicle 3's odometer), April is not. Exactly one pack per
 * month from the schedule, three XLSX attachments whose totals rows equal the CSV exports, again
 * only on `send-report`; April goes out at the deadline, marked partial with the reason.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import XLSX from 'xlsx';
import { loadConfig, type Config } from '../../src/config.ts';
import { memoryLogger } from '../../src/log.ts';
import { exportReport } from '../../src/reports/export.ts';
import { monthEndTick, sendMonthPack, type PackDeps } from '../../src/reports/pack.ts';
import { parseReportParams } from '../../src/reports/params.ts';
import { requireReport } from '../../src/reports/run.ts';
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

const PASSWORD = 's3cret-Pass';
let fx: FixtureDb;
let smtp: SmtpReceiver;
let env: Record<string, string>;
let config: Readonly<Config>;
const log = memoryLogger('debug');

beforeAll(async () => {
  fx = await openFixture();
  await settleMarch(fx.con);
  smtp = await startSmtpReceiver(PASSWORD);
  env = {
    FLEETSYNC_ACCOUNT: ACCOUNT,
    FLEET_TIMEZONE: ZONE,
    FLEETSYNC_DB: join(fx.dir, 'fleet.duckdb'),
    FLEETSYNC_SMTP_URL: `smtp://alerts:${PASSWORD}@127.0.0.1:${smtp.port}`,
    FLEETSYNC_REPORT_TO: 'finance@example.com',
    FLEETSYNC_REPORT_SCHEDULE: '0 7 * * *',
    FLEETSYNC_REPORT_DEADLINE_DAYS: '5',
  };
  config = loadConfig(env);
});
afterAll(async () => {
  await smtp?.close();
  fx?.close();
});

const deps = (nowIso: string, c: Readonly<Config> = config): PackDeps => ({
  db: fx.db,
  config: c,
  log,
  now: () => T(nowIso),
});

/** The totals row of the Report sheet: header label → cached value. */
function xlsxTotals(data: Buffer): Record<string, number> {
  const ws = XLSX.read(data, { type: 'buffer' }).Sheets.Report!;
  const rows = XLSX.utils.sheet_to_json(ws, { header: 1, blankrows: false }) as unknown[][];
  const [header, ...rest] = rows;
  const totals = rest.find((r) => r[0] === 'Total')!;
  expect(totals).toBeDefined();
  return Object.fromEntries(
    header!.map((h, i) => [String(h), totals[i]]).filter(([, v]) => typeof v === 'number'),
  ) as Record<string, number>;
}

/** The number of data rows of the CSV export of `name` for `month`. */
async function csvRows(name: string, month: string, nowIso: string): Promise<number> {
  const def = requireReport(name);
  const scope = { account: ACCOUNT, zone: ZONE, nowMs: T(nowIso) };
  const out = join(fx.dir, `${name}-${month}-rows.csv`);
  await exportReport(fx.con, def, scope, parseReportParams({ month }, def, scope), 'csv', out);
  return parseCsv(readFileSync(out, 'utf8').slice(1)).length - 1;
}

/** Sums of a column of the CSV export of `name` for `month` (blank = unknown, not added). */
async function csvSum(name: string, month: string, column: string, nowIso: string): Promise<number> {
  const def = requireReport(name);
  const scope = { account: ACCOUNT, zone: ZONE, nowMs: T(nowIso) };
  const out = join(fx.dir, `${name}-${month}.csv`);
  await exportReport(fx.con, def, scope, parseReportParams({ month }, def, scope), 'csv', out);
  const [header, ...rows] = parseCsv(readFileSync(out, 'utf8').slice(1));
  const i = header!.indexOf(column);
  return rows.reduce((s, r) => s + (r[i] === '' ? 0 : Number(r[i])), 0);
}

describe('month-end pack by e-mail', () => {
  it('sends a complete month once, with three XLSX attachments whose totals equal the CSV exports', async () => {
    const now = '2026-04-03T00:00:00Z'; // 3 April local: March has closed and is complete
    const sent = await monthEndTick(deps(now));
    expect(sent).toMatchObject({ month: '2026-03', partial: false });
    expect(smtp.mails).toHaveLength(1);
    const mail = parseMail(smtp.mails[0]!.raw);
    expect(smtp.mails[0]!.to).toEqual(['finance@example.com']);
    expect(mail.subject).toBe(`fleetsync ${ACCOUNT}: month-end pack 2026-03`);
    expect(mail.attachments.map((a) => a.name)).toEqual([
      'mileage_2026-03.xlsx',
      'fuel_2026-03.xlsx',
      'tolls_2026-03.xlsx',
    ]);
    const [mileage, fuel] = mail.attachments.slice(0, 2).map((a) => xlsxTotals(a.data));
    // tolls: one row per passage and no totals row (a sum of durations means nothing)
    const tollRows = xlsxRows(mail.attachments[2]!.data);
    expect(mileage!['Distance (km)']).toBeCloseTo(await csvSum('mileage', '2026-03', 'distance_km', now), 6);
    expect(mileage!['Windows left out']).toBe(await csvSum('mileage', '2026-03', 'excluded_periods', now));
    expect(fuel!['Fuel used (L)']).toBeCloseTo(await csvSum('fuel', '2026-03', 'fuel_used_l', now), 6);
    expect(tollRows.length).toBe(await csvRows('tolls', '2026-03', now));
    expect(tollRows.length).toBeGreaterThan(0);
    expect(await csvSum('mileage', '2026-03', 'distance_km', now)).toBeGreaterThan(0);
    expect(mail.text).toContain('Complete: complete through 31 Mar 2026 (local).');
    expect(mail.text).toMatch(/Mileage per vehicle and month: \d+ rows; Distance: [\d,.]+ km/);
    expect(mail.text).toContain('Windows left out of the totals:');

    // the schedule again (the same day, a day later): nothing more
    expect(await monthEndTick(deps(now))).toBeNull();
    expect(await monthEndTick(deps('2026-04-04T00:00:00Z'))).toBeNull();
    expect(smtp.mails).toHaveLength(1);
    const rows = (
      await fx.con.runAndReadAll(
        "SELECT trigger, partial, message_id FROM report_packs WHERE month = '2026-03'",
      )
    ).getRowObjectsJS();
    expect(rows).toEqual([{ trigger: 'schedule', partial: false, message_id: sent!.messageId }]);
  });

  it('an incomplete month waits until the deadline, then goes out marked partial with the reason', async () => {
    const before = smtp.mails.length;
    // April is complete through 31 March only; deadline 5 days → 6 May 00:00 local (5 May 14:00Z)
    expect(await monthEndTick(deps('2026-05-02T00:00:00Z'))).toBeNull();
    expect(await monthEndTick(deps('2026-05-05T13:59:00Z'))).toBeNull();
    expect(smtp.mails.length).toBe(before);
    const sent = await monthEndTick(deps('2026-05-05T14:01:00Z'));
    expect(sent).toMatchObject({ month: '2026-04', partial: true });
    expect(smtp.mails.length).toBe(before + 1);
    const mail = parseMail(smtp.mails.at(-1)!.raw);
    expect(mail.subject).toBe(`fleetsync ${ACCOUNT}: month-end pack 2026-04 (partial)`);
    // mileage: vehicle 1 settled all 30 days, vehicle 2 1–11 April (10 done + 1 flagged, then
    // incomplete), vehicle 3 none: (30 + 11 + 0) / 90 = 45.6 %; fuel: no April fuel window settled
    expect(mail.text).toContain(
      'PARTIAL: the data is complete through 31 Mar 2026 (local); the month ends 2026-04-30, so later days may still change; ' +
        "Mileage per vehicle and month: 45.6 % of the month's vehicle-days synced (2 of 3 rows partial or not synced); " +
        "Fuel used per vehicle and month: 0.0 % of the month's vehicle-days synced (3 of 3 rows partial or not synced).",
    );
    expect(mail.attachments).toHaveLength(3);
    expect(await monthEndTick(deps('2026-05-20T00:00:00Z'))).toBeNull();
    expect(smtp.mails.length).toBe(before + 1);
  });

  it('a wrong SMTP password: not sent, not recorded, and the password is in no message', async () => {
    const bad = loadConfig({
      ...env,
      FLEETSYNC_SMTP_URL: `smtp://alerts:wrong-${PASSWORD}@127.0.0.1:${smtp.port}`,
    });
    const before = smtp.mails.length;
    const err = await sendMonthPack(deps('2026-05-10T00:00:00Z', bad), '2026-02', 'cli').catch(
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(
      /month-end pack 2026-02 not sent: email smtp:\/\/127\.0\.0\.1:\d+/,
    );
    expect((err as Error).message).not.toContain(PASSWORD);
    expect(log.lines.join('\n')).not.toContain(PASSWORD);
    expect(smtp.mails.length).toBe(before);
    const n = (
      await fx.con.runAndReadAll("SELECT count(*)::INTEGER AS n FROM report_packs WHERE month = '2026-02'")
    ).getRowObjectsJS();
    expect(n[0]!.n).toBe(0);
  });

  it('send-report: refuses a bad month or missing SMTP settings (exit 2), and resends on request', async () => {
    const bad = await runMain(env, 'send-report', '--month', '2026-13');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--month must be a month as YYYY-MM');
    const none = await runMain(
      { ...env, FLEETSYNC_SMTP_URL: '', FLEETSYNC_REPORT_SCHEDULE: '', FLEETSYNC_REPORT_TO: '' },
      'send-report',
      '--month',
      '2026-03',
    );
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('FLEETSYNC_SMTP_URL');
    expect(none.stderr).toContain('FLEETSYNC_REPORT_TO');
    const noSmtp = await runMain({ ...env, FLEETSYNC_SMTP_URL: '' }, 'send-report', '--month', '2026-03');
    expect(noSmtp.code).toBe(2);
    expect(noSmtp.stderr).toContain('FLEETSYNC_SMTP_URL: required with FLEETSYNC_REPORT_TO');

    // The CLI opens the database file itself: this process lets go of it first.
    const before = smtp.mails.length;
    fx.con.closeSync();
    fx.db.close();
    const again = await runMain(env, 'send-report', '--month', '2026-03');
    expect(again.stderr).not.toContain(PASSWORD);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('sent the 2026-03 pack of acme to finance@example.com');
    expect(smtp.mails.length).toBe(before + 1);
    const mail = parseMail(smtp.mails.at(-1)!.raw);
    expect(mail.subject).toBe(`fleetsync ${ACCOUNT}: month-end pack 2026-03`);
    expect(mail.attachments).toHaveLength(3);
    // leave the directory for afterAll (fixture close would close the closed handles again)
    fx.close = () => rmSync(fx.dir, { recursive: true, force: true });
  });
});
