/**
 * The `.env` reader's rule, line by line: a `#` inside an unquoted value is part of it (tokens and
 * passwords hold them), a `#` after whitespace starts a comment, quotes keep anything, and a line
 * that is not a setting is refused naming its line. What the environment already sets wins.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEnvFile, parseEnvFile } from '../src/env-file.ts';

const parse = (lines: string[]) => Object.fromEntries(parseEnvFile(lines.join('\n'), 'the file'));

describe('parseEnvFile', () => {
  it('keeps a # inside an unquoted value and reads # after whitespace as a comment', () => {
    expect(
      parse([
        '# a comment line',
        '   # an indented comment',
        'FLEETSYNC_TOKEN=fleet-dashboard-#9f2c1e7a44b0',
        'FLEET_PASSWORD=pa#ss#',
        'FLEETSYNC_PORT=8080   # the dashboard',
        'FLEETSYNC_SCHEDULE=0 2 * * *',
        'export FLEET_COUNTRY=za',
        'EMPTY=',
        'HASH_ONLY=#',
        '',
      ]),
    ).toEqual({
      FLEETSYNC_TOKEN: 'fleet-dashboard-#9f2c1e7a44b0',
      FLEET_PASSWORD: 'pa#ss#',
      FLEETSYNC_PORT: '8080',
      FLEETSYNC_SCHEDULE: '0 2 * * *',
      FLEET_COUNTRY: 'za',
      EMPTY: '',
      HASH_ONLY: '',
    });
  });

  it('takes quoted values as written: single quotes literally, double quotes with escapes, across lines', () => {
    expect(
      parse([`A='pa ss #1' # comment`, 'B="x \\"q\\" #2\\nline"', 'C="first', 'second"', `D=''`]),
    ).toEqual({ A: 'pa ss #1', B: 'x "q" #2\nline', C: 'first\nsecond', D: '' });
  });

  it('reads a UTF-8 BOM and CRLF line ends', () => {
    expect(Object.fromEntries(parseEnvFile('\uFEFFA=1#x\r\nB=2\r\n', 'f'))).toEqual({ A: '1#x', B: '2' });
  });

  it('refuses a line that is not a setting, an unclosed quote and text after a closing quote, naming the line', () => {
    expect(() => parse(['A=1', 'FLEET_PASSWORD'])).toThrow(/the file line 2: not a setting/);
    expect(() => parse(['A="open', 'B=1'])).toThrow(/the file line 1: the quote " is never closed/);
    expect(() => parse(['', `A='x' y`])).toThrow(/the file line 2: text after the closing quote of A/);
  });
});

describe('loadEnvFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleetsync-envfile-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fills only what the environment does not set (an empty value counts as set)', () => {
    writeFileSync(join(dir, '.env'), 'A=from-file#1\nB=from-file\nC=from-file\n');
    const env: Record<string, string | undefined> = { B: 'from-env', C: '' };
    expect(loadEnvFile({ env, cwd: dir })).toBe(join(dir, '.env'));
    expect(env).toEqual({ A: 'from-file#1', B: 'from-env', C: '' });
  });

  it('names the file and the line of a bad setting', () => {
    writeFileSync(join(dir, 'bad.env'), 'A=1\nthis is not a setting\n');
    expect(() => loadEnvFile({ env: { FLEETSYNC_ENV_FILE: 'bad.env' }, cwd: dir })).toThrow(
      /environment file .*bad\.env line 2: not a setting/,
    );
  });
});
