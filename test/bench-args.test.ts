/**
 * The bench's command line (issue 29): `--size large` is the 5,000-vehicle × 2-year run of the
 * issue's table, a reduced `--vehicles N` keeps its parts, and the printed table carries a target
 * column. No benchmark runs here (no wall-clock time is asserted).
 */
import { describe, expect, it } from 'vitest';
import { LARGE_PARTS, parseArgs, SIZES } from '../bench/args.ts';
import { formatTable, fig } from '../bench/lib.ts';

describe('npm run bench -- --size large', () => {
  it('runs the dashboard calls, pages, exports, load test and sync CPU at 5,000 vehicles × 730 days, and the sync at the real window', () => {
    const a = parseArgs(['--size', 'large']);
    expect(a.size).toBe('large');
    expect([...a.only].sort()).toEqual(['exports', 'growth', 'load', 'pages', 'reports', 'sync']);
    expect([...a.only].sort()).toEqual([...LARGE_PARTS].sort());
    expect(SIZES.large.reports).toMatchObject({ vehicles: 5000, days: 730 });
    expect(SIZES.large.growth).toEqual([50, 500, 5000]);
    // the "sync ratio to the rate-limit floor, real 60 s window" row
    expect(SIZES.large.sync).toMatchObject({ vehicles: 200, days: 90, windowMs: 60_000 });
    // the load test of the issue: 16 clients, 4 downloads and a sync
    expect(SIZES.large.load).toMatchObject({ connections: 16, downloads: 4 });
  });

  it('takes a reduced fleet for development and --only for a part', () => {
    const a = parseArgs(['--size', 'large', '--vehicles', '500', '--only', 'reports,pages']);
    expect(a.vehicles).toBe(500);
    expect([...a.only].sort()).toEqual(['pages', 'reports']);
    // the default (full) bench keeps every part, the browser pages included
    expect(parseArgs([]).only.has('pages')).toBe(true);
    expect(parseArgs(['--quick']).size).toBe('quick');
  });

  it('names what is wrong with an argument', () => {
    expect(() => parseArgs(['--size', 'huge'])).toThrow(/--size takes quick, full, large \(got huge\)/);
    expect(() => parseArgs(['--vehicles', '0'])).toThrow(/--vehicles takes a whole number ≥ 1 \(got 0\)/);
    expect(() => parseArgs(['--only', 'nope'])).toThrow(/--only takes .*pages.* \(got nope\)/);
  });

  it('prints each figure with its target and pass / MISS', () => {
    const t = formatTable([
      fig('4 reports', 'GET /api/reports/kpis (full_year) p50 / p95', '12 / 180', 'ms', {
        target: 'p95 ≤ 100',
        pass: false,
      }),
      fig('6 memory', 'serving peak RSS', 480, 'MB', { target: '≤ 512', pass: true }),
      fig('machine', 'load average', '1 / 2', ''),
    ]).split('\n');
    expect(t[0]).toMatch(/^bench\s+figure\s+value\s+unit\s+target\s+result$/);
    expect(t[2]).toMatch(/p95 ≤ 100\s+MISS$/);
    expect(t[3]).toMatch(/≤ 512\s+pass$/);
    expect(t[4]).not.toMatch(/pass|MISS/);
  });
});
