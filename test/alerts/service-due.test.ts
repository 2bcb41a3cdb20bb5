/**
 * Service due alerts through the configured channels (a real webhook receiver and a real SMTP
 * server on port 0), over the hand-worked due list of test/service/fixture.ts: MONTHS is due and
 * BOTH overdue, so each channel gets those two once; checking again sends nothing; a service
 * recorded for BOTH sends its "recovered" once; MONTHS turning overdue (the clock past 25 July)
 * sends one update. NOSERVICE (unknown) never alerts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAlerter } from '../../src/alerts/alerter.ts';
import { readServiceRows, serviceDueText } from '../../src/alerts/service.ts';
import { prepareModelConnection } from '../../src/store/models.ts';
import { memoryLogger } from '../../src/log.ts';
import { recordServiceDone } from '../../src/service/store.ts';
import {
  startSmtpReceiver,
  startWebhookReceiver,
  type SmtpReceiver,
  type WebhookReceiver,
} from '../helpers/receivers.ts';
import { ACCOUNT, NOW, ZONE, openServiceFixture, type ServiceFixture } from '../service/fixture.ts';

let fx: ServiceFixture;
let hook: WebhookReceiver;
let smtp: SmtpReceiver;
beforeEach(async () => {
  fx = await openServiceFixture();
  hook = await startWebhookReceiver();
  smtp = await startSmtpReceiver('pw');
});
afterEach(async () => {
  await hook.close();
  await smtp.close();
  fx.close();
});

const service = (posts: WebhookReceiver['posts']) =>
  posts
    .map((p) => p.body as { text: string; fleetsync: { state: string; incident: string } })
    .filter((b) => b.fleetsync.incident.startsWith('service:'))
    .map((b) => ({ incident: b.fleetsync.incident, state: b.fleetsync.state, text: b.text }));

async function check(nowMs: number, log = memoryLogger()) {
  const alerter = createAlerter({
    db: fx.db,
    config: {
      alertWebhook: hook.url,
      smtpUrl: `smtp://alerts:pw@127.0.0.1:${smtp.port}`,
      alertEmail: ['fleet@example.com'],
      alertFrom: 'fleetsync@example.com',
      staleHours: 48,
      timezone: ZONE,
    },
    log,
    now: () => nowMs,
  });
  try {
    return await alerter.check();
  } finally {
    alerter.close();
  }
}

describe('service due alerts', () => {
  it('a due service reads as news about a vehicle, not a failure: logged at info, in a few words on a console', async () => {
    const log = memoryLogger('info');
    await check(NOW, log);
    // MONTHS due and BOTH overdue are sent (the test below): logged at info as "service due",
    // nothing at warn (what a terminal shows) about them
    expect(log.lines.filter((l) => / info +service due .*incident=service:[23] /.test(l))).toHaveLength(2);
    expect(log.lines.filter((l) => / warn .*service/.test(l))).toEqual([]);
    await prepareModelConnection(fx.con, ['alerts/service_due']);
    const rows = await readServiceRows(fx.con, [{ account: ACCOUNT, zone: ZONE }], NOW, memoryLogger());
    expect(serviceDueText(rows)).toBe('1 vehicle overdue for service, 1 due soon');
    expect(serviceDueText(rows.filter((r) => r.status !== 'overdue'))).toBe('1 vehicle due for service soon');
    expect(serviceDueText([])).toBe('');
  });

  it('alert once per vehicle that becomes due or overdue, by webhook and e-mail', async () => {
    const first = await check(NOW);
    expect(first.opened.filter((o) => o.includes('service:')).sort()).toEqual([
      'svc/service:2',
      'svc/service:3',
    ]);
    expect(service(hook.posts)).toEqual([
      {
        incident: 'service:2',
        state: 'open',
        text: expect.stringContaining('vehicle MONTHS (2) is due for service soon: 5 days to the date'),
      },
      {
        incident: 'service:3',
        state: 'open',
        text: expect.stringContaining('vehicle BOTH (3) is overdue for service: 1,200 km past the interval'),
      },
    ]);
    const mailed = smtp.mails.filter((m) => m.raw.includes('for service'));
    expect(mailed).toHaveLength(2);
    expect(mailed.every((m) => m.to.includes('fleet@example.com'))).toBe(true);

    // the same state again, an hour later: nothing new
    const posts = hook.posts.length;
    const mails = smtp.mails.length;
    await check(NOW + 3_600_000);
    expect(service(hook.posts.slice(posts))).toEqual([]);
    expect(smtp.mails.length).toBe(mails);

    // BOTH serviced: recovered once; the due date of MONTHS passed: one update to overdue
    await recordServiceDone(
      fx.con,
      ACCOUNT,
      { vehicle: '3', date: '2026-07-18', odometer: '101300' },
      ZONE,
      NOW,
    );
    const later = NOW + 6 * 86_400_000; // local 26 July
    await check(later);
    expect(service(hook.posts.slice(posts))).toEqual([
      {
        incident: 'service:2',
        state: 'update',
        text: expect.stringContaining('MONTHS (2) is overdue for service'),
      },
      {
        incident: 'service:3',
        state: 'recovered',
        text: expect.stringContaining('BOTH (3) is not due for service any more'),
      },
    ]);
    const again = hook.posts.length;
    await check(later + 60_000);
    expect(service(hook.posts.slice(again))).toEqual([]);
    expect(hook.posts.some((p) => p.body.text.includes('NOSERVICE'))).toBe(false);
  });
});
