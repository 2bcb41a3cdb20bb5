/** The shape every command module exports; see src/cli.ts for dispatch and exit codes. */
import type { ParseArgsConfig } from 'node:util';
import type { Clock } from '../time.ts';

export interface CommandContext {
  argv: string[];
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM); long-running commands await it. */
  stopSignal: AbortSignal;
  /** The clock (epoch ms; default Date.now): what "today" is for report ranges and "complete through". */
  now?: Clock;
}

/** What a command runs with: the clock defaulted, once, by `main` (src/cli.ts). */
export type RunContext = CommandContext & { now: Clock };

export type Command = {
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  run: (
    args: { values: Record<string, string | boolean | undefined>; positionals: string[] },
    ctx: RunContext,
  ) => Promise<number | void>;
};
