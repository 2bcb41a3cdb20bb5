/**
 * No credential ever leaves the process: a sync with a distinctive password (and a wrong one, and
 * through injected faults), every export format and its manifest, `status`, a server beyond
 * loopback with a token (every page, script and API answer, an on-demand sync, a refused token),
 * the stdout and stderr of every command at debug level, every DuckDB table and the raw database
 * file: none holds the password, the token, or their base64 / URL-encoded forms.
 *
 * The syncs (which hold the password), one export and the server run as child processes, so
 * whatever reaches the real stdout and stderr is read; `sync --plan`, `status` and the other
 * exports run through `main` in this process, whose stdout and stderr are what the command writes.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORT_NAMES } from '../../src/reports/registry.ts';
import { generateFleet } from '../../src/simulator/generate.ts';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/server.ts';
import { openDatabase } from '../../src/store/db.ts';
import { addDays, localDate } from '../../src/time.ts';
import { runCli, spawnCli } from '../helpers/cli-process.ts';
import { runMain } from '../helpers/cli.ts';

const ZONE = 'Europe/London';
const USER = 'ops-acme';
const PASSWORD = 'Pw9f3K!zQ x+/=Lark';
const WRONG = 'Wr0ng-Guess#Heron';
const TOKEN = 'tok-7Hq2-Zx91-Lm55-Rp08-Owl';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const NEEDLES = [PASSWORD, WRONG, TOKEN].flatMap((s) => [
  s,
  encodeURIComponent(s),
  b64(s),
  b64(`${USER}:${s}`),
]);

let sim: SimulatorHandle;
let dir: string;
let dbPath: string;
let firstDay: string;
let lastDay: string;
/** Every text a user, a log collector or a spreadsheet could see, by where it came from. */
const seen: [string, string][] = [];
const keep = (where: string, text: string | Buffer) => seen.push([where, text.toString('latin1')]);
const keepCli = (what: string, r: { stdout: string; stderr: string }) => {
  keep(`${what} stdout`, r.stdout);
  keep(`${what} stderr`, r.stderr);
};

beforeAll(async () => {
  const today = localDate(Date.now(), ZONE);
  const fleet = generateFleet({ seed: 3, vehicles: 4, days: 8, timezone: ZONE, endDay: addDays(today, -10) });
  firstDay = localDate(fleet.startMs, ZONE);
  lastDay = localDate(fleet.endMs - 1, ZONE);
  sim = await startSimulator({
    fleet,
    windowMs: 1000,
    credentials: { username: USER, mainPassword: PASSWORD, subPassword: 'sub-not-used-here' },
  });
  dir = mkdtempSync(join(tmpdir(), 'fleetsync-secrets-'));
  dbPath = join(dir, 'fleet.duckdb');
}, 30_000);
afterAll(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}) => ({
  FLEET_BASE_URL: sim.baseUrl,
  FLEET_USERNAME: USER,
  FLEET_PASSWORD: PASSWORD,
  FLEET_TIMEZONE: ZONE,
  FLEETSYNC_DB: dbPath,
  FLEETSYNC_RATE_WINDOW_MS: '1000',
  FLEETSYNC_LOG_LEVEL: 'debug',
  FLEETSYNC_TOKEN: TOKEN,
  ...extra,
});

describe('credentials and tokens', () => {
  it('appear in no log, error, export, page, API answer or table', async () => {
    const range = ['--from', firstDay, '--to', lastDay];
    const wrong = await runCli(['sync', ...range], env({ FLEET_PASSWORD: WRONG }));
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout + wrong.stderr).toMatch(/E_AUTH|401/);
    keepCli('sync with a wrong password', wrong);

    sim.setFaults({ serverErrorEvery: 7, rateLimitEvery: 5, rateLimitHeaders: 'absurd', truncateEvery: 11 });
    const faulty = await runCli(['sync', ...range], env({ FLEETSYNC_RATE_WINDOW_MS: '200' }));
    sim.setFaults({});
    keepCli('sync through faults', faulty);
    const ok = await runCli(['sync', ...range], env());
    expect(ok.code, ok.stderr).toBe(0);
    keepCli('sync', ok);
    keepCli('sync --plan', await runMain(env(), 'sync', '--plan', ...range));
    keepCli('status', await runMain(env(), 'status'));

    const out = join(dir, 'exports');
    mkdirSync(out);
    for (const report of ['trips', 'carpool'])
      for (const format of ['csv', 'parquet', 'arrow']) {
        const args = [
          'export',
          report,
          ...range,
          '--format',
          format,
          '--out',
          join(out, `${report}.${format}`),
        ];
        const r =
          report === 'trips' && format === 'csv' ? await runCli(args, env()) : await runMain(env(), ...args);
        expect(r.code, r.stderr).toBe(0);
        keepCli(`export ${report} ${format}`, r);
      }
    for (const f of readdirSync(out)) keep(`export file ${f}`, readFileSync(join(out, f)));

    // The server beyond loopback (token required), reached over 127.0.0.1.
    const serve = spawnCli(['serve'], env({ FLEETSYNC_HOST: '0.0.0.0', FLEETSYNC_PORT: '0' }));
    try {
      const line = await serve.waitFor(/fleetsync dashboard: http/);
      const port = /:(\d+)\//.exec(line)![1];
      const base = `http://127.0.0.1:${port}`;
      const auth = { Authorization: `Bearer ${TOKEN}` };
      const get = async (path: string, headers: Record<string, string> = auth) => {
        const res = await fetch(base + path, { headers });
        const headerLines: string[] = [];
        res.headers.forEach((v, k) => headerLines.push(`${k}: ${v}`));
        keep(`GET ${path} headers`, headerLines.join('\n'));
        keep(`GET ${path}`, Buffer.from(await res.arrayBuffer()));
        return res.status;
      };
      const pages = readdirSync(join(import.meta.dirname, '..', '..', 'dashboard'));
      for (const p of [
        '/',
        ...pages.filter((f) => f.endsWith('.html') || f.endsWith('.css')).map((f) => `/${f}`),
      ])
        expect(await get(p)).toBe(200);
      for (const js of readdirSync(join(import.meta.dirname, '..', '..', 'dashboard', 'js')))
        expect(await get(`/js/${js}`)).toBe(200);
      const q = `?from=${firstDay}&to=${lastDay}`;
      for (const path of ['/api/status', '/api/reports', '/api/changes', '/metrics'])
        expect(await get(path)).toBe(200);
      expect([200, 503]).toContain(await get('/healthz'));
      for (const name of REPORT_NAMES) {
        expect(await get(`/api/reports/${name}${q}`)).toBe(200);
        expect(await get(`/api/reports/${name}.csv${q}`)).toBe(200);
      }
      expect(await get('/api/status', {})).toBe(401);
      expect(await get('/api/status', { Authorization: `Bearer ${WRONG}-and-more` })).toBe(401);
      expect(await get('/api/reports/mileage?vehicle=x')).toBe(400);
      const syncRes = await fetch(`${base}/api/sync`, {
        method: 'POST',
        headers: { ...auth, 'X-Fleetsync-Request': '1' },
      });
      expect(syncRes.status).toBe(200);
      keep('POST /api/sync', await syncRes.text());
    } finally {
      serve.child.kill('SIGTERM');
      keepCli('serve', await serve.exited);
    }

    // Every table's text, and the raw database file.
    const db = await openDatabase(dbPath);
    const con = await db.connect();
    const tables = (
      await con.runAndReadAll(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1",
      )
    ).getRowObjectsJS();
    expect(tables.length).toBeGreaterThan(10);
    for (const t of tables) {
      const name = String(t.table_name);
      keep(
        `table ${name}`,
        JSON.stringify((await con.runAndReadAll(`SELECT * FROM "${name}"`)).getRowObjectsJson()),
      );
    }
    con.closeSync();
    db.close();
    for (const f of readdirSync(dir).filter((f) => f.startsWith('fleet.duckdb')))
      keep(`database file ${f}`, readFileSync(join(dir, f)));

    // The test can see: the runs table recorded the failed auth, the server saw the password.
    expect(seen.some(([w, t]) => w === 'table runs' && /E_AUTH/.test(t))).toBe(true);
    expect(seen.length).toBeGreaterThan(80);
    const leaks = seen.flatMap(([where, text]) =>
      NEEDLES.filter((n) => text.includes(n)).map((n) => `${where}: ${JSON.stringify(n)}`),
    );
    expect(leaks).toEqual([]);
    // One test through five processes, a server and ~80 requests: 46-53 s alone at load 19-28,
    // more than 120 s beside three other files at load 32 (it is the CPU it waits for).
  }, 240_000);
});
