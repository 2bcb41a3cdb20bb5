/** Working hours: parsed from FLEETSYNC_WORKING_HOURS (or an account's `working_hours`), refused with a clear message. */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadAccounts } from '../src/accounts.ts';
import { loadConfig } from '../src/config.ts';
import { isFleetsyncError } from '../src/errors.ts';
import { DEFAULT_WORKING_HOURS, parseWorkingHours } from '../src/working-hours.ts';

const parsed = (t: string) => {
  const r = parseWorkingHours(t);
  if (!r.ok) throw new Error(r.error);
  return r.value;
};

describe('working hours', () => {
  it('reads days as ranges and lists, then a local time range', () => {
    expect(DEFAULT_WORKING_HOURS).toEqual({
      spec: 'Mon-Fri 07:00-18:00',
      weekdays: [1, 2, 3, 4, 5],
      startMin: 420,
      endMin: 1080,
    });
    expect(parsed('Mon-Thu,Sat 06:30-15:00')).toMatchObject({
      weekdays: [1, 2, 3, 4, 6],
      startMin: 390,
      endMin: 900,
    });
    expect(parsed('sun 00:00-24:00')).toMatchObject({ weekdays: [7], startMin: 0, endMin: 1440 });
  });

  it.each([
    ['Mon-Fri', /not working hours/],
    ['Fri-Mon 07:00-18:00', /Monday to Sunday/],
    ['Mon-Fry 07:00-18:00', /not a day/],
    ['Mon-Fri 7-18', /HH:MM-HH:MM/],
    ['Mon-Fri 18:00-07:00', /end must be after the start/],
  ])('refuses %j', (text, message) => {
    const r = parseWorkingHours(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(message);
  });

  it('a bad FLEETSYNC_WORKING_HOURS is a configuration error naming the variable', () => {
    let problems: string[] = [];
    try {
      loadConfig({ FLEETSYNC_WORKING_HOURS: 'weekdays 9 to 5' });
    } catch (e) {
      if (isFleetsyncError(e, 'E_CONFIG')) problems = (e.details?.problems as string[]) ?? [e.message];
    }
    expect(problems.join('\n')).toMatch(/FLEETSYNC_WORKING_HOURS.*weekdays 9 to 5/);
    expect(loadConfig({ FLEETSYNC_WORKING_HOURS: 'Mon-Sat 06:00-20:00' }).workingHours?.weekdays).toEqual([
      1, 2, 3, 4, 5, 6,
    ]);
  });

  it('an accounts file sets them per account; the variable is the default for the others', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetsync-wh-'));
    const file = join(dir, 'accounts.json');
    const account = (name: string, extra: object = {}) => ({
      account: name,
      country: 'za',
      username: name,
      password_env: 'PW',
      timezone: 'Africa/Johannesburg',
      ...extra,
    });
    writeFileSync(
      file,
      JSON.stringify({ accounts: [account('a', { working_hours: 'Mon-Sat 06:00-14:00' }), account('b')] }),
    );
    const env = { FLEETSYNC_CONFIG: file, PW: 'secret', FLEETSYNC_WORKING_HOURS: 'Mon-Fri 08:00-17:00' };
    const [a, b] = loadAccounts(env);
    expect(a!.workingHours?.spec).toBe('Mon-Sat 06:00-14:00');
    expect(b!.workingHours?.spec).toBe('Mon-Fri 08:00-17:00');
    writeFileSync(file, JSON.stringify({ accounts: [account('a', { working_hours: 'always' })] }));
    expect(() => loadAccounts(env)).toThrow(/accounts\[0\]\.working_hours.*"always"/);
  });
});
