/**
 * What a bench child's RSS is made of (BENCH_MEM=1): every 200 ms the RSS, the V8 heap, memory
 * outside it (`external`: Buffers, DuckDB vectors handed to JS) and DuckDB's buffer pool
 * (`duckdb_memory()`, on a connection of its own) and mapped code; `other native` is what is left
 * (malloc'd memory outside DuckDB's accounting, freed memory the allocator keeps, thread stacks). Each phase keeps the parts as they were at its
 * highest RSS, and the highest of each part.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';

export interface MemParts {
  rssMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
  duckdbMb: number;
  duckdbTempMb: number;
  /** Mapped files (the node binary, DuckDB's library): the RSS that is code, not data. */
  fileMb: number;
  /** DuckDB's pool by what holds it (`duckdb_memory()` tags ≥ 1 MB), e.g. "ART_INDEX 120, ORDER_BY 60". */
  duckdbTags?: string;
}

export interface MemPhase {
  /** The parts at the phase's highest RSS sample. */
  atPeak: MemParts;
  /** The highest of each part over the phase. */
  max: MemParts;
}

const MB = 2 ** 20;
const zero = (): MemParts => ({
  rssMb: 0,
  heapUsedMb: 0,
  heapTotalMb: 0,
  externalMb: 0,
  duckdbMb: 0,
  duckdbTempMb: 0,
  fileMb: 0,
});

function rssFileMb(): number {
  try {
    const m = /RssFile:\s+(\d+)\s+kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

export function memorySampler(probe: DuckDBConnection | null, everyMs = 200) {
  const phases = new Map<string, MemPhase>();
  let phase = 'start';
  let duckdb = { mb: 0, tempMb: 0, tags: '' };
  let probing = false;
  const sample = () => {
    const m = process.memoryUsage();
    const now: MemParts = {
      rssMb: m.rss / MB,
      heapUsedMb: m.heapUsed / MB,
      heapTotalMb: m.heapTotal / MB,
      externalMb: m.external / MB,
      duckdbMb: duckdb.mb,
      duckdbTempMb: duckdb.tempMb,
      fileMb: rssFileMb(),
      duckdbTags: duckdb.tags,
    };
    let p = phases.get(phase);
    if (!p) phases.set(phase, (p = { atPeak: zero(), max: zero() }));
    if (now.rssMb >= p.atPeak.rssMb) p.atPeak = now;
    for (const k of Object.keys(now) as (keyof MemParts)[])
      if (k !== 'duckdbTags') p.max[k] = Math.max(p.max[k], now[k]);
    if (!probe || probing) return;
    probing = true;
    probe
      .runAndReadAll(
        'SELECT tag, memory_usage_bytes::DOUBLE AS b, temporary_storage_bytes::DOUBLE AS t FROM duckdb_memory()',
      )
      .then((r) => {
        const rows = r
          .getRowObjectsJS()
          .map((x) => ({ tag: String(x.tag), mb: Number(x.b) / MB, t: Number(x.t) / MB }));
        duckdb = {
          mb: rows.reduce((a, x) => a + x.mb, 0),
          tempMb: rows.reduce((a, x) => a + x.t, 0),
          tags: rows
            .filter((x) => x.mb >= 1)
            .sort((a, b) => b.mb - a.mb)
            .map((x) => `${x.tag} ${Math.round(x.mb)}`)
            .join(', '),
        };
      })
      .catch(() => {})
      .finally(() => (probing = false));
  };
  const on = Boolean(process.env.BENCH_MEM);
  const timer = on ? setInterval(sample, everyMs) : null;
  timer?.unref();
  return {
    /** Samples from now on count for `name`. */
    phase(name: string) {
      if (on) sample();
      phase = name;
    },
    stop(): Record<string, MemPhase> | undefined {
      if (!timer) return undefined;
      sample();
      clearInterval(timer);
      return Object.fromEntries(phases);
    },
  };
}

/** One line per phase: RSS at its peak = heap + external + DuckDB + the rest. */
export function describeMem(phases: Record<string, MemPhase> | undefined): string[] {
  if (!phases) return [];
  const r = (n: number) => Math.round(n);
  return Object.entries(phases).map(([name, { atPeak: a, max: m }]) => {
    const rest = a.rssMb - a.fileMb - a.heapTotalMb - a.externalMb - a.duckdbMb;
    return (
      `mem ${name}: peak RSS ${r(a.rssMb)} MB = code ${r(a.fileMb)} + V8 heap ${r(a.heapTotalMb)} (used ${r(a.heapUsedMb)}) + external ${r(a.externalMb)}` +
      ` + DuckDB ${r(a.duckdbMb)} (temp on disk ${r(a.duckdbTempMb)}${a.duckdbTags ? `; ${a.duckdbTags}` : ''}) + other native ${r(rest)}; highest: heap ${r(m.heapTotalMb)}, external ${r(m.externalMb)}, DuckDB ${r(m.duckdbMb)}`
    );
  });
}
