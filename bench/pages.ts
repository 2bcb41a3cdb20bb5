/**
 * Pages in a real browser (issue 29): the served dashboard (the real server in a child on the
 * seeded database, `pageServe`) opened by Chromium (playwright-core, /usr/bin/chromium) at its
 * default period, the overview (`/`) and the mileage page (`/mileage.html`). Per visit: time from
 * navigation to the first section shown with its answer (first data) and to the page's last
 * section (all data: `body[data-loading="false"]`), both on the page's own clock
 * (`performance.now()`, from navigation start). The first visit of each page after the server
 * started is cold (its answers not yet cached); the later `runs` are in a fresh browser context
 * each (no browser cache), the server's answers cached as a user coming back meets them.
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
}

export interface PageResult {
  page: string;
  cold: PageVisit;
  warm: PageVisit[];
}

export interface PagesResult {
  pages: PageResult[];
  servePeakRssMb: number;
}

/** Child: the real server on the seeded database until stdin ends; its peak RSS. */
export async function pageServeChild(a: { dbPath: string; nowMs: number; timezone: string }) {
  const { db, srv } = await serveSeeded(a);
  process.stdout.write(`READY ${JSON.stringify({ port: srv.port })}\n`);
  await waitForStop();
  await srv.close();
  db.close();
  return { peakRssMb: peakRssMb() };
}

// Runs in the page before its scripts: the moment the first section drops aria-busy (its answer
// shown) and the moment the page says it is done loading.
const MARKS = `(() => {
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
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.addInitScript(MARKS);
    await page.goto(url);
    await page.waitForSelector('body[data-loading="false"]', { timeout: 120_000 });
    const marks = (await page.evaluate('window.__marks')) as { first?: number; all?: number };
    return { firstDataMs: marks.first ?? NaN, allDataMs: marks.all ?? NaN, errors };
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
    await browser.close();
    browser = null;
    const served = await child.stop();
    return { pages, servePeakRssMb: served.peakRssMb };
  } finally {
    if (browser) await browser.close();
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
          note: `all data cold ${round(p.cold.allDataMs)}, warm p50 ${round(percentile(all, 50))}; ${p.warm.length} warm visits; ${errors.length} page errors${errors.length ? `: ${errors[0]!.slice(0, 120)}` : ''}`,
        },
      ),
    );
  }
  out.push(
    fig('6 memory', 'serving peak RSS, pages in the browser', r.servePeakRssMb, 'MB', {
      target: '≤ 512',
      pass: r.servePeakRssMb <= 512,
    }),
  );
  return out;
}
