/**
 * A dashboard page in Chromium, loaded: opens `url`, waits until every section has drawn
 * (`body[data-loading="false"]`) and collects console errors and uncaught exceptions, which a
 * test expects to be none.
 */
import type { Browser, Page } from 'playwright-core';

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
  const page = await browser.newPage({ locale: 'en-US', ...opts });
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(url);
  await page.waitForSelector('body[data-loading="false"]');
  return { page, problems };
}
