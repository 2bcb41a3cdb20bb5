/**
 * The browser files' Chromium: a connection to the one the run started (chromium-server.ts).
 * Pages opened through it live in browser contexts of this connection only; `close()` closes them
 * and disconnects, and leaves the shared Chromium running for the other files.
 */
import { chromium, type Browser } from 'playwright-core';
import { inject } from 'vitest';

export function sharedChromium(): Promise<Browser> {
  const ws = inject('chromiumWs');
  if (!ws) throw new Error('no shared Chromium: the browser project starts it (vitest.config.ts)');
  return chromium.connect(ws, { timeout: 60_000 });
}
