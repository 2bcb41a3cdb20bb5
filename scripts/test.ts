/**
 * `npm test`: the typecheck and the lint beside the tests, not before them (docs/architecture.md,
 * "Tests"). Vitest's output streams as it comes; the two checks run one after the other (one core
 * of the two for half a minute, not both) and are printed after it, with the whole run's wall time.
 * The exit code is non-zero when any of the three failed. Arguments go to vitest
 * (`npm test -- test/some.test.ts`).
 */
import { spawn } from 'node:child_process';

interface Done {
  name: string;
  code: number;
  seconds: number;
  output: string;
}

const t0 = Date.now();
const seconds = () => (Date.now() - t0) / 1000;

/** A check run to the end with its output kept. */
function check(name: string, script: string): Promise<Done> {
  const child = spawn('npm', ['run', '-s', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({ name, code: code ?? 1, seconds: seconds(), output })),
  );
}

function tests(args: string[]): Promise<Done> {
  const child = spawn('npx', ['vitest', 'run', ...args], { stdio: 'inherit' });
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({ name: 'tests', code: code ?? 1, seconds: seconds(), output: '' })),
  );
}

const checks = async () => [await check('typecheck', 'typecheck'), await check('lint', 'lint')];
const [[typecheck, lint], vitest] = await Promise.all([checks(), tests(process.argv.slice(2))]);
const all = [typecheck!, lint!, vitest];
for (const d of all.filter((x) => x.code !== 0 && x.output))
  process.stdout.write(`\n${d.name} failed:\n${d.output}`);
const lines = all.map(
  (d) => `  ${d.code === 0 ? 'ok    ' : 'FAILED'} ${d.name} (done at ${d.seconds.toFixed(0)} s)`,
);
process.stdout.write(
  `\nnpm test: ${seconds().toFixed(0)} s in all (the limit is 600 s)\n${lines.join('\n')}\n`,
);
process.exit(all.some((d) => d.code !== 0) ? 1 : 0);
