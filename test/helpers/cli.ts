/** The CLI in this process (`main`), with its output captured: for exit codes and messages. */
import { main } from '../../src/cli.ts';

export interface CliOutput {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runMain(env: Record<string, string>, ...argv: string[]): Promise<CliOutput> {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv,
    env,
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    stopSignal: new AbortController().signal,
  });
  return { code, stdout, stderr };
}
