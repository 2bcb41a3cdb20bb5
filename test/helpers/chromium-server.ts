/**
 * Once per `vitest run` that has browser files (the browser project's global setup,
 * vitest.config.ts): one headless Chromium for all of them, started here in vitest's main process
 * with playwright's `launchServer`. Each browser file connects to it (shared-chromium.ts) and
 * works in browser contexts of its own, closed when it disconnects: a file sees no other file's
 * pages, cookies or downloads. One launch instead of one per file: a launch costs ~0.4 CPU-s more
 * than a context in a running Chromium, and seconds of wall beside three other files.
 *
 * The files' CPU (file-cpu.ts) no longer holds Chromium's: at the end the shared Chromium's own CPU
 * seconds (its browser process and every process under it) are printed once for the run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { CHROMIUM, CHROMIUM_ARGS, haveChromium } from './chromium.ts';
import { cpuWithChildren } from './slowest-files.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Chromium's websocket endpoint; '' when there is no Chromium (the files skip). */
    chromiumWs: string;
  }
}

/**
 * CPU seconds of `pid` and every process under it, so far (Linux /proc: each thread's children,
 * and slowest-files.ts's own + waited-for children's CPU of each process).
 */
export function treeCpu(pid: number): number {
  let children: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`))
      children.push(
        ...readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
      );
  } catch {
    children = []; // ended in between
  }
  return (cpuWithChildren(`/proc/${pid}/stat`) ?? 0) + children.reduce((a, c) => a + treeCpu(c), 0);
}

export default async function setup(project: TestProject) {
  if (!haveChromium()) {
    project.provide('chromiumWs', '');
    return;
  }
  const server = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  project.provide('chromiumWs', server.wsEndpoint());
  return async () => {
    const pid = server.process().pid;
    const cpu = pid === undefined ? null : treeCpu(pid);
    await server.close();
    if (cpu !== null)
      process.stdout.write(`The shared Chromium of the browser files: ${cpu.toFixed(1)} s CPU\n`);
  };
}
