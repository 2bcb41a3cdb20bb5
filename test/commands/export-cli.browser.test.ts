/**
 * The dashboard's download and the real CLI agree byte for byte: `fleetsync export` runs as a
 * child process on the closed DuckDB file first (the server would hold the file), then the server
 * opens the same file and Chromium downloads the CSV for the same filter from the page.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/log.ts';
import { startServer, type RunningServer } from '../../src/server/start.ts';
import { openDatabase, type Database } from '../../src/store/db.ts';
import { ACCOUNT, NOW, fillFixture } from '../helpers/report-fixture.ts';
import { haveChromium as checkChromium } from '../helpers/chromium.ts';
import { downloaded } from '../helpers/dashboard-page.ts';
import { sharedChromium } from '../helpers/shared-chromium.ts';

const haveChromium = checkChromium();
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/** page, the CSV link's id, the report, and the filter as CLI options. */
const CASES: [string, string, string, string[]][] = [
  ['mileage.html', 'csv-mileage', 'mileage', ['--from', '2026-03-01', '--to', '2026-04-30']],
  ['tolls.html', 'csv-tolls', 'tolls', ['--from', '2026-04-01', '--to', '2026-04-30', '--vehicle', '1']],
  ['fuel.html', 'csv-fuel', 'fuel', ['--from', '2026-03-01', '--to', '2026-04-30', '--department', 'Sales']],
  ['quality.html', 'csv-excluded', 'excluded_windows', ['--from', '2026-03-01', '--to', '2026-04-30']],
];

let dir: string;
const cliFiles = new Map<string, Buffer>();
let db: Database;
let srv: RunningServer;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium) return;
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-cli-export-'));
  const dbPath = join(dir, 'fleet.duckdb');
  const filled = await openDatabase(dbPath);
  const con = await filled.connect();
  await fillFixture(con);
  con.closeSync();
  filled.close();
  // The CLI first, on the closed file.
  for (const [, , report, args] of CASES) {
    const out = join(dir, `${report}-cli.csv`);
    const res = await run(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'export', report, ...args, '--out', out],
      {
        cwd: ROOT,
        env: { ...process.env, FLEETSYNC_DB: dbPath, FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: 'UTC' },
      },
    );
    expect(res.stdout).toMatch(new RegExp(`^wrote \\d+ rows? of ${report} `));
    cliFiles.set(report, readFileSync(out));
  }
  // Then the server on the same file.
  db = await openDatabase(dbPath);
  srv = await startServer({
    db,
    config: loadConfig({ FLEETSYNC_ACCOUNT: ACCOUNT, FLEET_TIMEZONE: 'UTC' }),
    log: silentLogger,
    now: () => NOW,
    port: 0,
  });
  browser = await sharedChromium();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await srv?.close();
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!haveChromium)('dashboard download vs fleetsync export', () => {
  it.each(CASES)('%s #%s equals `fleetsync export %s %s`', async (path, link, report, args) => {
    const q = new URLSearchParams();
    for (let i = 0; i < args.length; i += 2) q.set(args[i]!.slice(2), args[i + 1]!);
    const page = await browser.newPage({ acceptDownloads: true });
    try {
      await page.goto(new URL(`/${path}?${q}`, srv.url).href);
      await page.waitForSelector('body[data-loading="false"]');
      const got = await downloaded(page, `#${link}`);
      const cli = cliFiles.get(report)!;
      // a header and at least one row: an empty filter would prove little
      expect(got.toString('utf8').trim().split('\n').length).toBeGreaterThan(1);
      expect(got.toString('utf8')).toBe(cli.toString('utf8'));
      expect(got.equals(cli)).toBe(true);
    } finally {
      await page.close();
    }
  });
});
