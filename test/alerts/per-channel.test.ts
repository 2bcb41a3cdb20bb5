/**
 * Alerts are delivered per channel, from the state file alone (no database: a process that cannot
 * write one, a worker): real webhook receivers on port 0, the run outcomes recorded as a sync
 * records them. A channel added while an incident is open gets it; a cause that changes while it
 * is open sends an update to the channels that had it; "recovered" goes only to the channels that
 * got the incident; a re-configured channel is a new one; a channel that failed is tried again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlerter } from '../../src/alerts/alerter.ts';
import { webhookChannel, type Channel } from '../../src/alerts/channels.ts';
import { memoryLogger } from '../../src/log.ts';
import { createOutcomes, type RunOutcomes } from '../../src/outcome/outcomes.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/receivers.ts';

const T0 = Date.parse('2026-11-20T02:00:00Z');
let dir: string;
let hook: WebhookReceiver;
let outcomes: RunOutcomes;
let t = T0;
let run = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-channels-'));
  hook = await startWebhookReceiver();
  outcomes = createOutcomes(join(dir, 'fleet.duckdb.state'));
});
afterAll(async () => {
  await hook?.close();
  rmSync(dir, { recursive: true, force: true });
});

const channel = (path: string): Channel => webhookChannel(`${hook.url}/${path}`);
/** One run of account `acme` as the sync records it: failed with `error`, or ok. */
function runEnds(error: string | null) {
  t += 3_600_000;
  const h = outcomes.begin('acme', 'schedule', t);
  h.named(`run-${++run}`);
  h.end({ state: error ? 'failed' : 'ok', error, recorded: false, nowMs: t + 60_000 });
}
async function check(...paths: string[]) {
  const before = hook.posts.length;
  const alerter = createAlerter({
    db: null,
    outcomes,
    config: {
      alertWebhook: null,
      smtpUrl: null,
      alertEmail: [],
      alertFrom: null,
      staleHours: 48,
      timezone: 'UTC',
    },
    log: memoryLogger(),
    now: () => t,
    channels: paths.map(channel),
  });
  await alerter.check();
  alerter.close();
  return hook.posts.slice(before).map((p) => ({
    to: p.path.slice(1),
    state: (p.body.fleetsync as { state: string }).state,
    text: p.body.text,
  }));
}

const API_DOWN = 'E_API_DOWN: the API answered nothing but 503 for 120 s';
const AUTH = 'E_AUTH: the API refused the credentials (401)';

describe('alerts per channel', () => {
  it('a channel added while an incident is open gets it; a changed cause updates the channel that had it', async () => {
    runEnds(API_DOWN);
    expect(await check('a')).toEqual([{ to: 'a', state: 'open', text: expect.stringContaining(API_DOWN) }]);
    runEnds(API_DOWN); // the same cause again: nothing new for anyone
    expect(await check('a')).toEqual([]);

    runEnds(AUTH);
    const sent = await check('a', 'b');
    expect(sent).toHaveLength(2);
    expect(sent).toEqual(
      expect.arrayContaining([
        { to: 'a', state: 'update', text: expect.stringContaining(AUTH) },
        { to: 'b', state: 'open', text: expect.stringContaining(AUTH) },
      ]),
    );
    expect(await check('a', 'b')).toEqual([]);
  });

  it('a re-configured channel is a new one; "recovered" goes only to channels that got the incident', async () => {
    // b's webhook moved to another path: that channel has not heard of the incident.
    expect(await check('a', 'b2')).toEqual([
      { to: 'b2', state: 'open', text: expect.stringContaining(AUTH) },
    ]);
    runEnds(null);
    const sent = await check('a', 'b2', 'c');
    expect(sent.map((s) => `${s.to} ${s.state}`).sort()).toEqual(['a recovered', 'b2 recovered']);
    expect(sent[0]!.text).toMatch(
      /^fleetsync: recovered: the sync of account acme is ok again \(run run-\d+/,
    );
    expect(await check('a', 'b2', 'c')).toEqual([]);
  });

  it('a channel that failed is tried again, and hears no "recovered" for an alert it never got', async () => {
    runEnds(API_DOWN);
    hook.status = 500; // both refuse
    const refused = await check('a', 'c');
    expect(refused.map((s) => `${s.to} ${s.state}`).sort()).toEqual(['a open', 'c open']);
    hook.status = 200;
    expect((await check('a', 'c')).map((s) => `${s.to} ${s.state}`).sort()).toEqual(['a open', 'c open']);
    // a refuses again; the run recovers before a ever got the alert.
    runEnds(null);
    hook.status = 500;
    expect((await check('a')).map((s) => `${s.to} ${s.state}`)).toEqual(['a recovered']);
    hook.status = 200;
    expect((await check('a')).map((s) => `${s.to} ${s.state}`)).toEqual(['a recovered']);
    runEnds(API_DOWN);
    hook.status = 500;
    await check('a');
    runEnds(null);
    hook.status = 200;
    expect(await check('a')).toEqual([]); // its alert never got out: no "recovered" either
  });

  it('the same failure met at another file is the same cause: no update', async () => {
    const full = (file: string) =>
      `stopped: the storage under the database failed (ENOSPC): Error: IO Error: Could not write file "${file}": No space left on device`;
    runEnds(null);
    await check('a');
    runEnds(full('/data/fleet.duckdb.wal'));
    expect(await check('a')).toEqual([
      { to: 'a', state: 'open', text: expect.stringContaining('fleet.duckdb.wal') },
    ]);
    runEnds(full('/data/fleet.duckdb'));
    expect(await check('a')).toEqual([]);
    runEnds('stopped (E_AUTH): the API refused the credentials for account acme (401)');
    expect(await check('a')).toEqual([{ to: 'a', state: 'update', text: expect.stringContaining('E_AUTH') }]);
    runEnds(null);
    expect((await check('a')).map((s) => s.state)).toEqual(['recovered']);
  });

  it('the memory is in the state file: another process (a new object on the same file) sends nothing again', async () => {
    runEnds(AUTH);
    expect(await check('a')).toHaveLength(1);
    outcomes = createOutcomes(join(dir, 'fleet.duckdb.state'));
    expect(await check('a')).toEqual([]);
  });

  it('a failed checkpoint kept in the state file alerts once, and recovers when it is cleared', async () => {
    runEnds(null);
    await check('a');
    const problem =
      'the database file /data/fleet.duckdb could not grow (IO Error: File too large): free space on its disk or raise the file-size limit (ulimit -f), then run the sync again; the synced data are kept in the write-ahead log /data/fleet.duckdb.wal (do not delete it)';
    // as the sync's checkpoint (src/store/checkpoint.ts recordCheckpoint) keeps it
    outcomes.update((d) => {
      d.checkpoint = { problem, first_ms: t, last_ms: t, runs: [{ account: 'acme', run_id: `run-${run}` }] };
    }, true);
    expect(await check('a')).toEqual([
      {
        to: 'a',
        state: 'open',
        text: `fleetsync: the database file could not take the synced data of account acme: ${problem}`,
      },
    ]);
    expect(await check('a')).toEqual([]);
    outcomes.update((d) => void (d.checkpoint = null), true);
    expect(await check('a')).toEqual([
      {
        to: 'a',
        state: 'recovered',
        text: 'fleetsync: recovered: the database file holds the synced data of account acme again (a checkpoint succeeded).',
      },
    ]);
  });
});
