/**
 * Issue 25, item 1: the month-end pack never certifies a partial month. A first sync of the
 * days since 25 March (the simulator's fleet ends 20 April; the clock is 24 April) leaves March
 * "complete through" its last day but synced on 7 of its 31 days only. The mileage export says so
 * (coverage = partial, covered_share = 7/31 on every row); the pack says the same: the scheduled
 * sender waits for the deadline, then mails it with "(partial)" in the subject and the share in
 * the body, to a real SMTP receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { memoryLogger } from '../../src/log.ts';
import { monthEndTick, type PackDeps } from '../../src/reports/pack.ts';
import { parseMail } from '../helpers/mail.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../helpers/receivers.ts';
import { ACCOUNT, startHarness, type Harness } from '../helpers/synced.ts';

const PASSWORD = 'pack-Pass-1';
let h: Harness;
let smtp: SmtpReceiver;

beforeAll(async () => {
  h = await startHarness({ fleet: { seed: 11, vehicles: 4, days: 60, endDay: '2026-04-20' } });
  smtp = await startSmtpReceiver(PASSWORD);
  const run = await h.sync({ fromDay: '2026-03-25', toDay: h.lastDay });
  expect(run.outcome).toBe('ok');
}, 120_000);
afterAll(async () => {
  await smtp?.close();
  await h?.close();
});

const deps = (deadlineDays: number): PackDeps => ({
  db: h.db,
  config: loadConfig({
    FLEETSYNC_ACCOUNT: ACCOUNT,
    FLEET_TIMEZONE: h.fleet.timezone,
    FLEETSYNC_DB: h.dbPath,
    FLEETSYNC_SMTP_URL: `smtp://alerts:${PASSWORD}@127.0.0.1:${smtp.port}`,
    FLEETSYNC_REPORT_TO: 'finance@example.com',
    FLEETSYNC_REPORT_SCHEDULE: '0 7 * * *',
    FLEETSYNC_REPORT_DEADLINE_DAYS: String(deadlineDays),
  }),
  log: memoryLogger('debug'),
  now: h.now,
});

describe('month-end pack after a first sync of the last weeks', () => {
  it('the month before is partial: the export says 7 of 31 days, and so does the pack', async () => {
    const share = Math.round((7 / 31) * 10_000) / 10_000; // 25–31 March of 31 days
    const rows = await h.report('mileage', { month: '2026-03' });
    expect(rows).toHaveLength(4);
    for (const r of rows) expect(r).toMatchObject({ coverage: 'partial', covered_share: share });

    // 24 April: 28 deadline days (29 April) have not passed → the schedule waits (it used to send "Complete")
    expect(await monthEndTick(deps(28))).toBeNull();
    expect(smtp.mails).toHaveLength(0);

    // 5 deadline days (6 April) have passed → sent, marked partial, with the share
    const sent = await monthEndTick(deps(5));
    expect(sent).toMatchObject({ month: '2026-03', partial: true });
    expect(smtp.mails).toHaveLength(1);
    const mail = parseMail(smtp.mails[0]!.raw);
    expect(mail.subject).toBe(`fleetsync ${ACCOUNT}: month-end pack 2026-03 (partial)`);
    expect(mail.text).not.toContain('Complete:');
    expect(mail.text).toContain(
      "PARTIAL: Mileage per vehicle and month: 22.6 % of the month's vehicle-days synced (4 of 4 rows partial or not synced)",
    );
    expect(mail.text).toContain(
      "Fuel used per vehicle and month: 22.6 % of the month's vehicle-days synced (4 of 4 rows partial or not synced).",
    );
    expect(sent!.reason).toContain('22.6 %');
  });
});
