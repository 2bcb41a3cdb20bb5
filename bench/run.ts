/**
 * `npm run bench [-- --quick] [-- --only <name>[,<name>]]`: the performance benchmarks of issue 5.
 * Prints a table (figure, target, pass/miss), writes everything measured to
 * `bench/results/<time>-<mode>.json`, and prints one line of JSON with the headline figures last.
 * Names: sync (1 + 6), baseline (2), ingest (3), reports (4 + 6), exports (5), growth (7),
 * prices (10: export time with a 100,000-row prices file).
 * `--baseline-vehicles N` runs the baseline on N vehicles (default: a quarter of the sync's fleet,
 * extrapolated and labelled). `--scale` runs the scale run (scale.ts) alone, or with the parts
 * `--only` names: `--scale-vehicles 500,2000,5000 --scale-days 365 --scale-budget-s 1200`.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { compareFigures, measureBaseline } from './compare.ts';
import { csvVsCopy, exportFigures, perMillionS, type ExportResult } from './exports.ts';
import { ingestFigures, ingestRate, type IngestResult } from './ingest.ts';
import { fig, formatTable, prepareChildren, round, runChild, say, type Figure } from './lib.ts';
import { loadErrors, loadFigures, measureLoad } from './load.ts';
import { dashboardCold, dashboardP95, measureReports, reportFigures } from './reports.ts';
import { measureScale, scaleCurve, scaleFigures } from './scale.ts';
import {
  growthFigures,
  measureNightlyCpu,
  measureSync,
  measureSyncCpu,
  nightlyFigures,
  ratioOf,
  syncFigures,
  type SyncResult,
} from './sync.ts';
import { scaledLimits } from './world.ts';
import { parseArgs, SIZES, type Name } from './args.ts';

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const mode = args.size;
  const sized = args.windowMs ? { ...SIZES[mode], limits: scaledLimits(args.windowMs, 1) } : SIZES[mode];
  // --vehicles N: the reports' database (and the growth's largest fleet) at N vehicles, e.g. to
  // try the large run's parts at a tenth of its size.
  const S = args.vehicles
    ? {
        ...sized,
        reports: { ...sized.reports, vehicles: args.vehicles },
        growth: [...sized.growth.filter((v) => v < args.vehicles!), args.vehicles],
      }
    : sized;
  const started = new Date();
  const load0 = loadavg();
  const figures: Figure[] = [];
  const raw: Record<string, unknown> = { mode, started: started.toISOString(), loadavgStart: load0 };
  // The children run the build of src/ (dist/), as installed processes do; BENCH_CHILD=tsx: tsx.
  raw.child = (await prepareChildren()).entry;
  const head: Record<string, number | null> = {
    ratio_to_limit: null,
    genuine_429: null,
    ingest_rows_per_s: null,
    upsert_rows_per_s: null,
    dashboard_p95_ms: null,
    dashboard_cold_ms: null,
    export_1m_csv_s: null,
    export_csv_vs_copy: null,
    peak_rss_mb: null,
    serve_peak_rss_mb: null,
    load_p95_ms: null,
    load_rps: null,
    load_errors: null,
    load_downloads_p95_ms: null,
    page_first_data_ms: null,
    sync_cpu_ms_per_request: null,
    scale_vehicles: null,
    scale_ms_per_request: null,
    scale_growth: null,
    scale_peak_rss_mb: null,
    scale_real_limits_s: null,
  };
  const servePeak = (mb: number) =>
    (head.serve_peak_rss_mb = round(Math.max(head.serve_peak_rss_mb ?? 0, mb), 1));
  const peak = (mb: number) => (head.peak_rss_mb = round(Math.max(head.peak_rss_mb ?? 0, mb), 1));
  const syncRuns = new Map<number, SyncResult>();
  // wall seconds of each part (issue 29: where a --size large run's time goes)
  const partS: Record<string, number> = {};
  let part0 = performance.now();
  const partDone = (name: string) => {
    partS[name] = round((performance.now() - part0) / 1000, 1);
    part0 = performance.now();
  };
  // the sync part's limits: the size's own window when it names one (large: the real 60 s), unless
  // --window-ms says otherwise
  const syncWindowMs = (S.sync as { windowMs?: number }).windowMs;
  const syncLimits = syncWindowMs && !args.windowMs ? scaledLimits(syncWindowMs, 1) : S.limits;
  const syncAt = async (vehicles: number) => {
    let r = syncRuns.get(vehicles);
    if (!r) syncRuns.set(vehicles, (r = await measureSync(vehicles, S.sync.days, syncLimits)));
    return r;
  };

  if (args.only.has('sync')) {
    const r = await syncAt(S.sync.vehicles);
    figures.push(...syncFigures(r, syncLimits));
    head.ratio_to_limit = round(ratioOf(r), 3);
    head.genuine_429 = r.genuine429;
    peak(r.peakRssMb);
  }
  if (args.only.has('baseline')) {
    const bv = args.baselineVehicles ?? S.baselineVehicles;
    const base = await measureBaseline(bv, S.sync.days, syncLimits);
    raw.baseline = base;
    const same = await syncAt(bv);
    figures.push(...compareFigures(same, base).map((f) => ({ ...f, name: `${bv} veh: ${f.name}` })));
    if (bv !== S.sync.vehicles) {
      const big = await syncAt(S.sync.vehicles);
      figures.push(
        ...compareFigures(big, base).map((f) => ({ ...f, name: `${S.sync.vehicles} veh: ${f.name}` })),
      );
    }
  }
  if (args.only.has('ingest')) {
    say(`ingest: ${S.ingest.minTrips} trips + odometer windows`);
    const r = await runChild<IngestResult>('ingest', S.ingest);
    raw.ingest = r;
    figures.push(...ingestFigures(r));
    head.ingest_rows_per_s = Math.round(ingestRate(r));
    head.upsert_rows_per_s = Math.round(r.tripRows / (r.upsertTripsMs / 1000));
  }
  if (['reports', 'exports', 'load', 'pages'].some((n) => args.only.has(n as Name))) {
    part0 = performance.now();
    const { dir, seed, serve } = await measureReports(
      S.reports.vehicles,
      S.reports.days,
      S.reports.iterations,
      args.only.has('reports'),
      S.reports.queries,
    );
    try {
      raw.seed = seed;
      if (serve) {
        raw.serve = serve;
        figures.push(...reportFigures(seed, serve, S.reports.vehicles, S.reports.days));
        head.dashboard_p95_ms = round(dashboardP95(serve), 1);
        head.dashboard_cold_ms = round(dashboardCold(serve), 1);
        peak(serve.dashboardPeakRssMb);
        servePeak(serve.peakRssMb);
      }
      partDone(serve ? 'seed copy + reports' : 'seed copy');
      if (args.only.has('pages')) {
        say(`pages: overview and mileage in Chromium, ${S.pages.runs} warm visits each`);
        const { measurePages, pagesFigures } = await import('./pages.ts');
        const r = await measurePages(seed, S.pages.runs);
        raw.pages = r;
        figures.push(...pagesFigures(r));
        head.page_first_data_ms = round(
          Math.max(...r.pages.flatMap((p) => [p.cold.firstDataMs, ...p.warm.map((w) => w.firstDataMs)])),
          1,
        );
        servePeak(r.servePeakRssMb);
        partDone('pages');
      }
      if (args.only.has('exports')) {
        say(`exports: trips CSV and Parquet, ${S.exports.targetRows} rows`);
        const r = await runChild<ExportResult>('export', {
          dbPath: seed.dbPath,
          nowMs: seed.nowMs,
          timezone: seed.timezone,
          ...S.exports,
        });
        raw.exports = r;
        figures.push(...exportFigures(r));
        const csv = r.timings.find((t) => t.format === 'csv');
        head.export_1m_csv_s = csv ? round(perMillionS(csv), 3) : null;
        const ratio = csvVsCopy(r);
        head.export_csv_vs_copy = ratio === null ? null : round(ratio, 2);
        partDone('exports');
      }
      if (args.only.has('load')) {
        const r = await measureLoad(seed, { ...S.load, limits: S.limits });
        raw.load = r;
        figures.push(...loadFigures(r));
        head.load_p95_ms = round(r.phase1.p95, 1);
        head.load_rps = round(r.phase1.rps, 1);
        head.load_errors = loadErrors(r.phase1) + loadErrors(r.phase2) + r.statusProbe.errors;
        head.load_downloads_p95_ms = round(r.phase2.p95, 1);
        servePeak(r.serve.peakRssMb);
        partDone('load');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (args.only.has('growth')) {
    part0 = performance.now();
    // CPU-bound (every limit ×100, as the scale run): at the limits a small fleet's run is mostly
    // waiting for the EV bucket's windows, and what the process spends while it waits (DuckDB's
    // and V8's threads, timers; more on a loaded machine) was divided by few requests: the same
    // 50-vehicle sync measured 4.9 to 10.9 ms of CPU per request from one run to the next.
    const runs: SyncResult[] = [];
    for (const v of args.growth.vehicles ?? S.growth)
      runs.push(await measureSyncCpu(v, args.growth.days ?? S.growthDays, S.limits.windowMs));
    raw.growth = runs;
    figures.push(...growthFigures(runs));
    // A diagnostic beside them: 50 vehicles' nightly run (the last day of 8 alone), mostly fixed work.
    const nightly = await measureNightlyCpu(50, 7, S.limits.windowMs);
    raw.growthNightly = nightly;
    figures.push(...nightlyFigures(nightly));
    head.sync_cpu_ms_per_request = round(Math.max(...runs.map((r) => r.cpuMs / r.requests)), 2);
    partDone('growth');
  }
  if (args.only.has('prices')) {
    const { measurePrices, pricesFigures } = await import('./prices.ts');
    const r = await measurePrices(args.quick);
    raw.prices = r;
    figures.push(...pricesFigures(r));
  }
  if (args.only.has('workers')) {
    const { measureWorkers, workersFigures } = await import('./workers.ts');
    const runs = await measureWorkers(args.quick);
    raw.workers = runs;
    figures.push(...workersFigures(runs));
  }
  let curve = '';
  if (args.scale.on) {
    say(
      `scale: ${args.scale.vehicles.join(' / ')} vehicles × ${args.scale.days} days, limits ×100, budget ${args.scale.budgetS} s`,
    );
    const runs = await measureScale(args.scale);
    raw.scale = runs;
    figures.push(...scaleFigures(runs));
    curve = scaleCurve(runs);
    const done = runs.filter((r) => r.result);
    const first = done[0];
    const last = done[done.length - 1];
    if (first && last) {
      head.scale_vehicles = last.vehicles;
      head.scale_ms_per_request = round(last.msPerRequest!, 2);
      head.scale_growth = round(last.msPerRequest! / first.msPerRequest!, 2);
      head.scale_peak_rss_mb = round(Math.max(...done.map((r) => r.result!.peakRssMb)), 1);
      head.scale_real_limits_s = Math.round(last.realLeastS!);
    }
  }
  raw.sync = Object.fromEntries(syncRuns);
  const load1 = loadavg();
  figures.push(
    fig(
      'machine',
      'load average (1 min) at start / end',
      `${round(load0[0]!, 1)} / ${round(load1[0]!, 1)}`,
      '',
      {
        note: `2 cores shared; ${round((Date.now() - started.getTime()) / 1000)} s in all`,
      },
    ),
  );
  if (Object.keys(partS).length)
    figures.push(
      fig(
        'machine',
        'wall time by part',
        Object.entries(partS)
          .map(([k, v]) => `${k} ${v} s`)
          .join(', '),
        '',
        {
          note: `load ${round(load0[0]!, 1)} → ${round(load1[0]!, 1)}`,
        },
      ),
    );
  raw.partS = partS;
  raw.loadavgEnd = load1;
  raw.figures = figures;
  raw.headline = head;

  const outDir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(outDir, { recursive: true });
  const file = `${outDir}${started.toISOString().replace(/[:.]/g, '-')}-${mode}.json`;
  writeFileSync(file, JSON.stringify(raw, null, 2) + '\n');
  process.stdout.write(`\nfleetsync bench (${mode})\n\n${formatTable(figures)}\n\nresults: ${file}\n`);
  if (curve) process.stdout.write(`\nscale: time per request by fleet size\n${curve}\n`);
  process.stdout.write(`${JSON.stringify(head)}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
