/**
 * Sync CPU per request at one size, as the bench's growth part measures it (measureSyncCpu,
 * bench/sync.ts: a child process syncs against the simulator here, limits ×100), printed as one
 * JSON line for A/B runs: `node --import tsx bench/experiments/sync-cpu.ts 50 7`. With the bench's
 * diagnostics, e.g. BENCH_PHASES=1 (CPU at each info line), BENCH_SQL_TIMES=N BENCH_SQL_CPU=1.
 */
import { measureSyncCpu } from '../sync.ts';

const vehicles = Number(process.argv[2] ?? 50);
const days = Number(process.argv[3] ?? 7);
const r = await measureSyncCpu(vehicles, days);
console.log(
  JSON.stringify({
    vehicles,
    days,
    requests: r.requests,
    cpuMs: Math.round(r.cpuMs),
    msPerRequest: Number((r.cpuMs / r.requests).toFixed(2)),
    threads: r.cpuByThread,
    wallMs: Math.round(r.wallMs),
    rows: r.rows,
    outcome: r.outcome,
    peakRssMb: Math.round(r.peakRssMb),
  }),
);
process.exit(0);
