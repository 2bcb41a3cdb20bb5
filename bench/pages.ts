/**
 * Pages in a real browser (issue 29): the served dashboard (the real server in a child on the
 * seeded database, `pageServe`) opened by Chromium (playwright-core, /usr/bin/chromium) at its
 * default period, the overview (`/`) and the mileage page (`/mileage.html`). Per visit: time from
 * navigation to the first section shown with its answer (first data) and to the page's last
 * section (all data: `body[data-loading="false"]`), both on the page's own clock
 * (`performance.now()`, from navigation start). The first visit of each page after the server
 * started is cold (its answers not yet cached); the later `runs` are in a fresh browser context
 * each (no browser cache), the server's answers cached as a user coming back meets them.
 *
 * The server warms the overview's calls into its memo at start (as `fleetsync serve` does, and
 * after each sync run; BENCH_WARM=0 turns it off): the cold visit above starts at once, beside
 * that warm-up. A second server then waits for its warm-up before the overview's first visit:
 * what a user meets the morning after the nightly sync (`after warm-up`). Each visit counts the
 * report calls the server computed for it rather than answering from its memo (X-Fleetsync-Answer).
 */
import { chromium, type Browser } from 'playwright-core';
import { fig, peakRssMb, percentile, round, say, startChild, waitForStop, type Figure } from './lib.ts';
import { serveSeeded } from './reports.ts';

const CHROMIUM = process.env.FLEETSYNC_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'];

export const PAGES = [
  { name: 'overview', path: '/' },
  { name: 'mileage', path: '/mileage.html' },
] as const;

export interface PageVisit {
  firstDataMs: number;
  allDataMs: number;
  errors: string[];
  /** Report calls of the visit, and those the server computed (not from its memo). */
  calls: number;
  computed: number;
}

export interface PageResult {
  page: string;
  cold: PageVisit;
  warm: PageVisit[];
}

export interface PagesResult {
  pages: PageResult[];
  servePeakRssMb: number;
  /** The overview's first visit on a server whose warm-up was done, and how long that took. */
  afterWarmUp: (PageVisit & { warmUpMs: number }) | null;
}

/** Child: the real server on the seeded database until stdin ends; its peak RSS. */
export async function pageServeChild(a: {
  dbPath: string;
  nowMs: number;
  timezone: string;
  warmed?: boolean;
}) {
  const { db, srv } = await serveSeeded(a);
  const t0 = performance.now();
  if (a.warmed) await srv.warmed();
  const warmUpMs = performance.now() - t0;
  process.stdout.write(`READY ${JSON.stringify({ port: srv.port, warmUpMs })}\n`);
  await waitForStop();
  await srv.close();
  db.close();
  return { peakRssMb: peakRssMb() };
}

// Runs in the page before its scripts: the moment the first section drops aria-busy (its answer
// shown) and the moment the page says it is done loading.
export const MARKS = `(() => {
  window.__marks = {};
  new MutationObserver((list) => {
    for (const m of list) {
      const t = m.target;
      if (m.attributeName === 'aria-busy' && t.tagName === 'SECTION' && !t.hasAttribute('aria-busy'))
        window.__marks.first ??= performance.now();
      if (m.attributeName === 'data-loading' && t === document.body && t.dataset.loading === 'false')
        window.__marks.all ??= performance.now();
    }
  }).observe(document, { attributes: true, subtree: true, attributeFilter: ['aria-busy', 'data-loading'] });
})();`;

async function visit(browser: Browser, url: string): Promise<PageVisit> {
  const ctx = await browser.newContext({ locale: 'en-US' });
  try {
    const page = await ctx.newPage();
    const errors: string[] = [];
    const answers: string[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/api/reports/')) answers.push(r.headers()['x-fleetsync-answer'] ?? '');
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.addInitScript(MARKS);
    await page.goto(url);
    await page.waitForSelector('body[data-loading="false"]', { timeout: 120_000 });
    const marks = (await page.evaluate('window.__marks')) as { first?: number; all?: number };
    return {
      firstDataMs: marks.first ?? NaN,
      allDataMs: marks.all ?? NaN,
      errors,
      calls: answers.length,
      computed: answers.filter((a) => a === 'computed').length,
    };
  } finally {
    await ctx.close();
  }
}

export async function measurePages(
  seed: { dbPath: string; nowMs: number; timezone: string },
  runs: number,
): Promise<PagesResult> {
  const child = startChild<{ port: number }, { peakRssMb: number }>('pageServe', seed);
  let browser: Browser | null = null;
  try {
    const { port } = await child.ready;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const pages: PageResult[] = [];
    for (const p of PAGES) {
      const url = `http://127.0.0.1:${port}${p.path}`;
      const cold = await visit(browser, url);
      const warm: PageVisit[] = [];
      for (let i = 0; i < runs; i++) warm.push(await visit(browser, url));
      say(
        `pages: ${p.name} first data cold ${round(cold.firstDataMs)} ms, warm p50 ${round(
          percentile(
            warm.map((w) => w.firstDataMs).sort((x, y) => x - y),
            50,
          ),
        )} ms`,
      );
      pages.push({ page: p.name, cold, warm });
    }
    const served = await child.stop();
    const afterWarmUp = process.env.BENCH_WARM === '0' ? null : await visitWarmed(browser, seed);
    await browser.close();
    browser = null;
    return { pages, servePeakRssMb: served.peakRssMb, afterWarmUp };
  } finally {
    if (browser) await browser.close();
    await child.stop().catch(() => {});
  }
}

/** The overview's first visit on a fresh server once its warm-up is done. */
async function visitWarmed(
  browser: Browser,
  seed: { dbPath: string; nowMs: number; timezone: string },
): Promise<PageVisit & { warmUpMs: number }> {
  const child = startChild<{ port: number; warmUpMs: number }, { peakRssMb: number }>('pageServe', {
    ...seed,
    warmed: true,
  });
  try {
    const { port, warmUpMs } = await child.ready;
    const v = await visit(browser, `http://127.0.0.1:${port}${PAGES[0].path}`);
    say(
      `pages: overview after the warm-up (${round(warmUpMs)} ms) first data ${round(v.firstDataMs)} ms, ${v.computed} of ${v.calls} calls computed`,
    );
    return { ...v, warmUpMs };
  } finally {
    await child.stop().catch(() => {});
  }
}

export function pagesFigures(r: PagesResult): Figure[] {
  const B = '11 pages';
  const out: Figure[] = [];
  for (const p of r.pages) {
    const first = p.warm.map((w) => w.firstDataMs).sort((x, y) => x - y);
    const all = p.warm.map((w) => w.allDataMs).sort((x, y) => x - y);
    const errors = [p.cold, ...p.warm].flatMap((v) => v.errors);
    const worst = Math.max(p.cold.firstDataMs, ...first);
    out.push(
      fig(
        B,
        `${p.page} page: first data in the browser, cold / warm p95`,
        `${round(p.cold.firstDataMs)} / ${round(percentile(first, 95))}`,
        'ms',
        {
          target: '≤ 1,000',
          pass: worst <= 1000 && errors.length === 0,
          note: `all data cold ${round(p.cold.allDataMs)}, warm p50 ${round(percentile(all, 50))}; ${p.warm.length} warm visits; cold visit: ${p.cold.computed} of ${p.cold.calls} calls computed; ${errors.length} page errors${errors.length ? `: ${errors[0]!.slice(0, 120)}` : ''}`,
        },
      ),
    );
  }
  const w = r.afterWarmUp;
  if (w)
    out.push(
      fig(B, 'overview page after the warm-up (as after a sync): first data', round(w.firstDataMs), 'ms', {
        target: '≤ 1,000',
        pass: w.firstDataMs <= 1000 && w.errors.length === 0,
        note: `warm-up ${round(w.warmUpMs)} ms; all data ${round(w.allDataMs)}; ${w.computed} of ${w.calls} calls computed; ${w.errors.length} page errors`,
      }),
    );
  out.push(
    fig('6 memory', 'serving peak RSS, pages in the browser', r.servePeakRssMb, 'MB', {
      target: '≤ 512',
      pass: r.servePeakRssMb <= 512,
    }),
  );
  return out;
}
