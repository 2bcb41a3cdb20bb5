/**
 * A stopping server never hangs on the work it started (src/server/stop.ts): the sync run, the
 * warm-up, the month-end pack, the alert check and the subscriptions end on their own stop signals,
 * and what still runs once the wait has passed is named in an error line and left behind. Before,
 * `close()` waited for each of them for as long as it took: a run that ignored its signal, or a
 * mail server that took the connection and never answered (60 s per step of nodemailer), held
 * `systemctl stop` until systemd killed the process.
 *
 * The stalled pieces are real: a run that never ends, an SMTP port that accepts and stays silent.
 * The wait is given in milliseconds here (STOP_WORK_GIVE_UP_MS in production).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { memoryLogger } from '../../src/log.ts';
import { startServer } from '../../src/server/start.ts';
import { spawnCli } from '../helpers/cli-process.ts';
import { ACCOUNT, T, ZONE, openFixture, settleMarch, type FixtureDb } from '../helpers/report-fixture.ts';

let fx: FixtureDb;
beforeAll(async () => {
  fx = await openFixture();
  await settleMarch(fx.con);
});
afterAll(() => fx?.close());

/** Whether `p` settles within `ms` (the old close never did). */
const settlesWithin = (p: Promise<unknown>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

/** A TCP port that takes connections and never says a word (an SMTP server that hangs). */
async function silentPort() {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined); // reset by the client at the end: nothing to report
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    get connections() {
      return sockets.size;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

const config = (extra: Record<string, string> = {}) =>
  loadConfig({
    FLEETSYNC_ACCOUNT: ACCOUNT,
    FLEET_TIMEZONE: ZONE,
    FLEETSYNC_DB: join(fx.dir, 'fleet.duckdb'),
    ...extra,
  });

describe("a stopping server's wait for its own work", () => {
  it('names a sync run that does not end on its signal and stops without it', async () => {
    const log = memoryLogger('debug');
    let started = () => {};
    const running = new Promise<void>((r) => (started = r));
    const s = await startServer({
      db: fx.db,
      config: config(),
      log,
      now: () => T('2026-04-03T00:00:00Z'),
      port: 0,
      alertCheckMs: 3_600_000,
      // the warm-up and the alert check end on their signal well within it, even on a loaded machine
      stopWorkGiveUpMs: 3_000,
      drainLimits: { interruptAfterMs: 50, giveUpAfterMs: 50 },
      // a run that ignores its stop signal and never ends
      runSync: () => {
        started();
        return new Promise(() => undefined);
      },
    });
    // the call waits for the run's summary: it never gets one (the stop closes its connection)
    const asked = fetch(new URL('/api/sync', s.url), {
      method: 'POST',
      headers: { 'x-fleetsync-request': '1' },
    }).catch(() => undefined);
    await running;
    expect(await settlesWithin(s.close(), 10_000)).toBe(true);
    await asked;
    const left = log.lines.filter((l) => /work still running after the wait was left behind/.test(l));
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/the sync run/);
    expect(left[0]).not.toMatch(/warm-up|month-end pack|alert check/); // those ended when asked
  }, 30_000);

  it('names a month-end pack stuck on a silent mail server, records nothing, and stops without it', async () => {
    const smtp = await silentPort();
    const log = memoryLogger('debug');
    const s = await startServer({
      db: fx.db,
      config: config({
        FLEETSYNC_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        FLEETSYNC_REPORT_TO: 'finance@example.com',
        FLEETSYNC_REPORT_SCHEDULE: '* * * * * *',
      }),
      log,
      now: () => T('2026-04-03T00:00:00Z'), // March closed and complete: its pack is due
      port: 0,
      stopWorkGiveUpMs: 200,
      drainLimits: { interruptAfterMs: 50, giveUpAfterMs: 50 },
    });
    try {
      // the pack's attachments are made; its message waits for the server's greeting
      await expect.poll(() => smtp.connections, { timeout: 20_000 }).toBeGreaterThan(0);
      expect(await settlesWithin(s.close(), 10_000)).toBe(true);
      const left = log.lines.filter((l) => /work still running after the wait was left behind/.test(l));
      expect(left).toHaveLength(1);
      expect(left[0]).toMatch(/the month-end pack/);
    } finally {
      await smtp.close(); // the pack's send fails now: it says it stopped, not that it failed
    }
    await expect
      .poll(() => log.lines.filter((l) => /month-end pack stopped: the server is stopping/.test(l)).length, {
        timeout: 10_000,
      })
      .toBe(1);
    expect(log.lines.filter((l) => /month-end pack failed/.test(l))).toEqual([]);
    // its connection, held while it waited, is the work's left behind: no "never closed" defect
    expect(log.lines.filter((l) => /never closed/.test(l))).toEqual([]);
    const sent = await fx.con.runAndReadAll('SELECT count(*)::INTEGER AS n FROM report_packs');
    expect(sent.getRowObjectsJS()[0]!.n).toBe(0);
  }, 60_000);

  it('as a process: `serve` told to stop (SIGTERM) while its pack waits on a silent mail server exits, saying what it left', async () => {
    const smtp = await silentPort();
    const dir = mkdtempSync(join(tmpdir(), 'fleetsync-stop-wait-'));
    try {
      // the real clock: last month has no data, past its deadline the pack goes out partial
      const serve = spawnCli(['serve'], {
        FLEETSYNC_ACCOUNT: ACCOUNT,
        FLEET_TIMEZONE: ZONE,
        FLEETSYNC_DB: join(dir, 'fleet.duckdb'),
        FLEETSYNC_PORT: '0',
        FLEETSYNC_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        FLEETSYNC_REPORT_TO: 'finance@example.com',
        FLEETSYNC_REPORT_SCHEDULE: '* * * * * *',
        FLEETSYNC_REPORT_DEADLINE_DAYS: '1',
      });
      await serve.waitFor(/fleetsync dashboard:/);
      await expect.poll(() => smtp.connections, { timeout: 20_000 }).toBeGreaterThan(0);
      serve.child.kill('SIGTERM');
      // Before, the stop waited for the mail server's own timeout (60 s for its greeting) and
      // systemd's TimeoutStopSec=60s killed it first. Now: 20 s for the work, ≤ 15 s for the drain.
      const exited = await Promise.race([
        serve.exited,
        new Promise<null>((r) => setTimeout(() => r(null), 50_000)),
      ]);
      if (!exited) serve.child.kill('SIGKILL');
      expect(exited, serve.stderr()).not.toBeNull();
      expect(exited!.code, exited!.stderr).toBe(0);
      expect(exited!.stderr).toMatch(/work still running after the wait was left behind.*the month-end pack/);
      expect(exited!.stderr).not.toMatch(/never closed/);
    } finally {
      await smtp.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
