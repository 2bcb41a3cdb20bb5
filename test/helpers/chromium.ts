/**
 * The Chromium the browser tests (and `npm run screenshot`) drive through playwright-core: the
 * Debian binary. Without it the browser tests skip locally, but fail under CI=true, so CI can
 * never pass with them silently skipped.
 */
import { existsSync } from 'node:fs';

export const CHROMIUM = process.env.FLEETSYNC_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** True when Chromium is there; throws under CI=true when it is not. */
export function haveChromium(): boolean {
  const have = existsSync(CHROMIUM);
  if (!have && process.env.CI === 'true')
    throw new Error(
      `${CHROMIUM} is missing: CI must install chromium (apt-get install chromium) for browser tests`,
    );
  if (!have) console.warn(`browser tests skipped: ${CHROMIUM} is missing (apt-get install chromium)`);
  return have;
}
