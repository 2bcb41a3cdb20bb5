/**
 * Benchmark 10: export time with a large prices file. `fleetsync export costs` (the real command,
 * in process) on a synced database, with FLEETSYNC_PRICES naming a file of 100,000 toll tariffs
 * and fuel prices (`--quick`: 20,000) against one that holds only the defaults. Each file is
 * exported `repeats` times in a row, as a user or a cron job runs exports; best and worst of
 * each. Target: the large file's export within 2× the small one's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/cli.ts';
import { createFleetClient } from '../src/api/client.ts';
import { silentLogger } from '../src/log.ts';
import { generateFleet } from '../src/simulator/generate.ts';
import { startSimulator } from '../src/simulator/server.ts';
import { openDatabase } from '../src/store/db.ts';
import { addDays, localDate } from '../src/time.ts';
import { syncAccount } from '../src/wiring.ts';
import { fig, round, type Figure } from './lib.ts';

export interface PricesResult {
  rows: number;
  tollGeofences: number;
  /** ms per export, in order (the first one loads the file). */
  small: number[];
  large: number[];
}

const CLASSES = ['A', 'B', 'C', 'D'];

/**
 * A valid prices file: defaults, and when rows > 0 monthly fuel prices and daily toll tariffs of
 * every toll geofence and class up to `lastDay` (so the synced passages' days have tariffs of
 * their own among many older ones).
 */
function pricesCsv(rows: number, geofences: readonly string[], lastDay: string): string {
  const out = [
    'record,fuel_type,vehicle_class,month,geofence_id,valid_from,valid_to,price,factor',
    'default,diesel,A,,,,,,',
  ];
  const fuelMonths = Math.min(240, Math.floor(rows / 100));
  for (let m = 0; m < fuelMonths; m++) {
    const month = `${2006 + Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}`;
    for (const t of ['diesel', 'petrol'])
      out.push(`fuel_price,${t},,${month},,,,${(1.2 + m / 1000).toFixed(3)},`);
  }
  const keys = geofences.flatMap((g) => CLASSES.map((c) => [g, c] as const));
  const perKey = Math.ceil((rows - (out.length - 2)) / keys.length);
  const firstTariff = addDays(lastDay, 1 - perKey);
  for (const [g, c] of keys)
    for (let d = 0; d < perKey && out.length - 2 < rows; d++)
      out.push(`toll_tariff,,${c},,${g},${addDays(firstTariff, d)},,${(2 + (d % 50) / 10).toFixed(2)},`);
  return out.join('\n') + '\n';
}

export async function measurePrices(quick: boolean): Promise<PricesResult> {
  const rows = quick ? 20_000 : 100_000;
  const repeats = quick ? 2 : 5;
  const fleet = generateFleet({ seed: 11, vehicles: 6, days: 40, endDay: '2026-09-30' });
  const base = fleet.endMs + 4 * 86_400_000;
  const t0 = Date.now();
  const now = () => base + (Date.now() - t0);
  const sim = await startSimulator({ fleet, now, windowMs: 500, enforceLimits: false });
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-bench-prices-'));
  const dbPath = join(dir, 'fleet.duckdb');
  try {
    const db = await openDatabase(dbPath);
    const client = createFleetClient({
      now: Date.now,
      baseUrl: sim.baseUrl,
      username: 'demo',
      password: 'demo-main',
      timezone: fleet.timezone,
      windowMs: 500,
      log: silentLogger,
    });
    const firstDay = localDate(fleet.startMs, fleet.timezone);
    const lastDay = localDate(fleet.endMs - 1, fleet.timezone);
    await syncAccount(
      {
        db,
        client,
        account: 'bench',
        timezone: fleet.timezone,
        baseUrl: sim.baseUrl,
        windowMs: 500,
        log: silentLogger,
        now,
      },
      { trigger: 'cli', fromDay: firstDay, toDay: lastDay },
    );
    await client.close();
    db.close();
    const tolls = fleet.geofences.filter((g) => g.is_toll).map((g) => g.geofence_id);
    const small = join(dir, 'small.csv');
    const large = join(dir, 'large.csv');
    writeFileSync(small, pricesCsv(0, tolls, lastDay));
    writeFileSync(large, pricesCsv(rows, tolls, lastDay));
    const exportMs = async (file: string) => {
      const env = {
        FLEETSYNC_DB: dbPath,
        FLEETSYNC_ACCOUNT: 'bench',
        FLEET_TIMEZONE: fleet.timezone,
        FLEETSYNC_PRICES: file,
        FLEETSYNC_LOG_LEVEL: 'error',
      };
      const a = performance.now();
      let err = '';
      const code = await main({
        argv: ['export', 'costs', '--from', firstDay, '--to', lastDay, '--out', join(dir, 'costs.csv')],
        env,
        stdout: () => {},
        stderr: (t) => (err += t),
        stopSignal: new AbortController().signal,
        now,
      });
      if (code !== 0) throw new Error(`export with ${file} exited ${code}: ${err.slice(0, 2000)}`);
      return performance.now() - a;
    };
    const result: PricesResult = { rows, tollGeofences: tolls.length, small: [], large: [] };
    for (let i = 0; i < repeats; i++) result.small.push(await exportMs(small));
    for (let i = 0; i < repeats; i++) result.large.push(await exportMs(large));
    return result;
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function pricesFigures(r: PricesResult): Figure[] {
  const best = (a: number[]) => Math.min(...a);
  const ratio = best(r.large) / best(r.small);
  const first = r.large[0]! / r.small[0]!;
  return [
    fig(
      'prices',
      `export costs, defaults-only prices file (best of ${r.small.length})`,
      round(best(r.small)),
      'ms',
    ),
    fig(
      'prices',
      `export costs, ${r.rows.toLocaleString('en')}-row prices file (best of ${r.large.length})`,
      round(best(r.large)),
      'ms',
      {
        note: `each run: ${r.large.map((x) => round(x)).join(' / ')} ms (the first stores the file)`,
      },
    ),
    fig('prices', 'large ÷ small prices file, export time', round(ratio, 2), '×', {
      target: '≤ 2',
      pass: ratio <= 2,
    }),
    fig('prices', 'large ÷ small, first export (stores the file)', round(first, 2), '×', {
      note: `${r.tollGeofences} toll geofences × ${CLASSES.length} classes of daily tariffs up to the fleet's last day`,
    }),
  ];
}

// `node --import tsx bench/prices.ts [--quick]`: this benchmark alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await measurePrices(process.argv.includes('--quick'));
  for (const f of pricesFigures(r))
    process.stdout.write(
      `${f.name}: ${f.value} ${f.unit}${f.target ? ` (target ${f.target})` : ''}${f.note ? ` — ${f.note}` : ''}\n`,
    );
}
