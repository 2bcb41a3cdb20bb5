/**
 * `fleetsync --help` is the first thing a new user reads: it must name every command the CLI
 * dispatches (it once left out `send-report`), every export format (it once left out `xlsx`) and
 * every exit code the CLI returns; and each command's --help every option it accepts.
 */
import { describe, expect, it } from 'vitest';
import { COMMANDS, EXIT } from '../src/cli.ts';
import { EXPORT_FORMATS } from '../src/reports/export.ts';
import { runMain } from './helpers/cli.ts';

describe('fleetsync --help', () => {
  it('lists every command the CLI dispatches, each on a line of its own', async () => {
    const { code, stdout } = await runMain({}, '--help');
    expect(code).toBe(0);
    const listed = [...stdout.matchAll(/^ {2}([a-z][a-z-]*) {2,}/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual(Object.keys(COMMANDS).sort());
  });

  it('names every export format on the export line', async () => {
    const { stdout } = await runMain({}, '--help');
    const formats = /--format ([a-z|]+)/.exec(stdout)?.[1]?.split('|');
    expect(formats?.sort()).toEqual([...EXPORT_FORMATS].sort());
  });

  it('states every exit code the CLI maps an error to', async () => {
    const { stdout } = await runMain({}, '--help');
    const line = stdout.split('\n').find((l) => l.startsWith('exit codes:')) ?? '';
    const stated = [...line.matchAll(/(\d+) [a-z]/g)].map((m) => Number(m[1]));
    expect(new Set(stated)).toEqual(new Set([0, 1, ...Object.values(EXIT)]));
  });

  it('shows each command its own usage with --help (exit 0), and no command at all is a usage error', async () => {
    for (const name of Object.keys(COMMANDS)) {
      const { code, stdout } = await runMain({}, name, '--help');
      expect(code, name).toBe(0);
      expect(stdout, name).toContain(`usage: fleetsync ${name}`);
    }
    const none = await runMain({});
    expect(none.code).toBe(2);
    expect(none.stdout).toContain('send-report');
  });

  it("names every option a command accepts in that command's --help (export once hid --grain and --limit)", async () => {
    for (const [name, load] of Object.entries(COMMANDS)) {
      const { stdout } = await runMain({}, name, '--help');
      for (const option of Object.keys((await load()).options)) expect(stdout, name).toContain(`--${option}`);
    }
  });
});
