/**
 * A dashboard page in Chromium, loaded: opens `url`, waits until every section has drawn
 * (`body[data-loading="false"]`) and collects console errors and uncaught exceptions, which a
 * test expects to be none.
 */
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';

export interface OpenedPage {
  page: Page;
  /** Console errors and page errors, in order. */
  problems: string[];
}

export async function openDashboard(
  browser: Browser,
  url: string,
  opts: { acceptDownloads?: boolean } = {},
): Promise<OpenedPage> {
  return loaded(await browser.newPage({ locale: 'en-US', ...opts }), url);
}

/**
 * `openDashboard` at a viewport, in a browser context of its own (axe-core's AxeBuilder refuses
 * a page from browser.newPage()); the caller closes `ctx`.
 */
export async function openDashboardAt(
  browser: Browser,
  url: string,
  viewport: { width: number; height: number },
): Promise<OpenedPage & { ctx: BrowserContext }> {
  const ctx = await browser.newContext({ locale: 'en-US', viewport });
  return { ctx, ...(await loaded(await ctx.newPage(), url)) };
}

/**
 * One page in one browser context, loaded again (`page.goto`) by each `open` instead of a fresh
 * context per test: a fresh context cost the shared Chromium ~1.33 CPU-s a load, a goto on a
 * reused page 0.39. Between tests: the routes are dropped, the problems list emptied and the
 * page's storage cleared (the dashboard keeps none today). A test about a first visit, a fresh
 * session or the page clock keeps a page of its own. `release` hands the page back to the next
 * `open`; `close` ends the context (afterAll).
 */
export function reusedPage(
  browser: () => Browser,
  opts: { acceptDownloads?: boolean; viewport?: { width: number; height: number } } = {},
) {
  let shared: Promise<{ ctx: BrowserContext; page: Page; problems: string[] }> | undefined;
  const get = () =>
    (shared ??= (async () => {
      const ctx = await browser().newContext({ locale: 'en-US', ...opts });
      const page = await ctx.newPage();
      const problems: string[] = [];
      listen(page, problems);
      return { ctx, page, problems };
    })());
  return {
    async open(url: string): Promise<OpenedPage> {
      const { page, problems } = await get();
      problems.length = 0;
      await page.goto(url);
      await page.waitForSelector('body[data-loading="false"]');
      return { page, problems };
    },
    async release(page: Page): Promise<void> {
      await page.unrouteAll({ behavior: 'ignoreErrors' });
      await page
        .evaluate(() => {
          sessionStorage.clear();
          localStorage.clear();
        })
        .catch(() => undefined); // about:blank or a page that failed to load has no storage
    },
    async close(): Promise<void> {
      if (shared) await (await shared).ctx.close();
    },
  };
}

function listen(page: Page, problems: string[]): void {
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
}

async function loaded(page: Page, url: string): Promise<OpenedPage> {
  const problems: string[] = [];
  listen(page, problems);
  await page.goto(url);
  await page.waitForSelector('body[data-loading="false"]');
  return { page, problems };
}

/**
 * The file a click on `selector` downloads, read whole: through playwright's stream, since the
 * browser files' Chromium is shared (test/helpers/chromium-server.ts) and its download folder is
 * not the test's to read by path.
 */
export async function downloaded(page: Page, selector: string): Promise<Buffer> {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const chunks: Buffer[] = [];
  for await (const c of await d.createReadStream()) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** "2026-03" as the dashboard writes a month: "Mar 2026". */
export const monthText = (ym: string) => `${MON[Number(ym.slice(5, 7)) - 1]} ${ym.slice(0, 4)}`;
/** A local ISO time "2026-03-07T05:00:00+11:00" as people write it: "7 Mar 2026, 05:00". */
export const asPeopleWrite = (iso: string) =>
  `${Number(iso.slice(8, 10))} ${monthText(iso.slice(0, 7))}, ${iso.slice(11, 16)}`;

/** A section's table as objects keyed by column name (data-col; the totals row left out). */
export const sectionRows = (page: Page, id: string): Promise<Record<string, string>[]> =>
  page.$$eval(`#table-${id} table`, (tables) => {
    const t = tables[0] as HTMLTableElement | undefined;
    if (!t) return [];
    const head = Array.from(t.tHead!.rows[0]!.cells).map((c) => (c as HTMLElement).dataset.col!);
    return Array.from(t.tBodies[0]!.rows)
      .filter((r) => !r.classList.contains('totals'))
      .map((r) => Object.fromEntries(Array.from(r.cells).map((c, i) => [head[i]!, c.textContent ?? ''])));
  });

/**
 * axe-core's serious and critical violations on a loaded page, as "rule: targets" lines. Every
 * rule runs on every element; only the violations are gathered node by node (axe's `resultTypes`:
 * the passes of a page with a 1,200-row table are 14,000 nodes, 12 % of its time). `exclude`:
 * CSS selectors of elements axe leaves out (ui.browser: the rows of a long table past its first
 * hundred, checked at another width already).
 */
export async function seriousAxeViolations(page: Page, exclude: string[] = []): Promise<string[]> {
  const builder = new AxeBuilder({ page }).options({ resultTypes: ['violations'] });
  for (const selector of exclude) builder.exclude(selector);
  const result = await builder.analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
