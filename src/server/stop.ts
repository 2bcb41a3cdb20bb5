/**
 * A stopping server's wait for the work it started (the sync run, the overview's warm-up, the
 * month-end pack, the alert check, the subscriptions): each step is asked to stop on its own
 * signal and awaited, in order (the run ends before the warm-up and the alerts it hands its data
 * to). A stop never hangs on one of them: once `giveUpMs` has passed, the steps not reached yet
 * are asked to stop too, and the names of those still running are returned. The server then goes
 * on stopping; the routes' drain (drain.ts) interrupts the statements they still run on the
 * database, so closing the instance stays safe.
 */

/** A step of the stop: the name a log line shows, and the stop (its signal, then its end). */
export type StopStep = readonly [name: string, stop: () => unknown];

/** Runs `steps` in order within `giveUpMs`; resolves with the names of the steps still running then. */
export async function stopInOrder(steps: readonly StopStep[], giveUpMs: number): Promise<string[]> {
  const begun = new Map<string, Promise<void>>();
  const ended = new Set<string>();
  const begin = ([name, stop]: StopStep) => {
    let p = begun.get(name);
    if (!p) {
      p = Promise.resolve()
        .then(stop)
        // a step logs its own failure; a failed step has ended all the same
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => ended.add(name));
      begun.set(name, p);
    }
    return p;
  };
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>(
    (resolve) => (timer = setTimeout(() => resolve('expired'), giveUpMs)),
  );
  const inOrder = (async () => {
    for (const s of steps) await begin(s);
  })();
  const outcome = await Promise.race([inOrder, expired]);
  clearTimeout(timer);
  if (outcome !== 'expired') return [];
  for (const s of steps) void begin(s);
  // a step that ends as soon as it is asked (nothing of it running) is not named
  await new Promise<void>((resolve) => setImmediate(resolve));
  return steps.map(([name]) => name).filter((name) => !ended.has(name));
}
