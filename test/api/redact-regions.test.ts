/**
 * Two small things a user meets first: the regional address the client talks to (a wrong host is
 * a sync that never starts), and that the password never reaches a log line, however the client's
 * logger is used (messages, fields, child loggers; the password itself and its Basic-auth form).
 */
import { describe, expect, it } from 'vitest';
import { clientRedactor, redactingLogger } from '../../src/api/redact.ts';
import { baseUrlForCountry, isCountryCode } from '../../src/api/regions.ts';
import type { LogFields, Logger } from '../../src/log.ts';

describe('regional base URLs', () => {
  it.each([
    ['za', 'https://fleetapi-za.cartrack.com/rest'],
    ['ZA', 'https://fleetapi-za.cartrack.com/rest'],
    ['nz', 'https://fleetapi-nz.cartrack.com/rest'],
    ['ke', 'https://fleetapi-ke.karooooo.com/rest'],
    ['SA', 'https://fleetapi-sa.karooooo.com/rest'],
    ['sw', 'https://fleetapi-sw.cartrack.com/rest'],
    ['znz', 'https://fleetapi-znz.cartrack.com/rest'],
  ])('%s → %s', (cc, url) => {
    expect(isCountryCode(cc)).toBe(true);
    expect(baseUrlForCountry(cc)).toBe(url);
  });

  it('an unknown country is refused by name, not turned into a host that does not exist', () => {
    for (const cc of ['xx', 'us', '', 'za.evil.com']) expect(isCountryCode(cc)).toBe(false);
    expect(() => baseUrlForCountry('xx')).toThrow(new RangeError('unknown country code "xx"'));
  });
});

describe('the client’s logger never writes the password', () => {
  const user = 'fleet-user';
  const password = 's3cret&pa ss';
  const basic = Buffer.from(`${user}:${password}`, 'utf8').toString('base64');

  /** A logger that keeps what it was given: level, message, fields, the fields of its parents. */
  function recording(lines: string[], parent: LogFields = {}): Logger {
    const put = (level: string) => (msg: string, fields?: LogFields) =>
      lines.push(`${level} ${msg} ${JSON.stringify({ ...parent, ...fields })}`);
    return {
      debug: put('debug'),
      info: put('info'),
      warn: put('warn'),
      error: put('error'),
      child: (f) => recording(lines, { ...parent, ...f }),
    };
  }

  it('in messages and string fields at every level, in its children, as itself, URL-encoded or as Basic auth', () => {
    const lines: string[] = [];
    const log = redactingLogger(recording(lines), clientRedactor(user, password));
    log.debug(`login with ${password}`, { header: `Basic ${basic}`, attempt: 1, ok: false });
    log.info('url', { url: `https://x/?p=${encodeURIComponent(password)}` });
    log.warn(`echo: ${basic}`);
    log.error('upstream said', { body: `bad password ${password}` });
    log.child({ who: password }).child({ n: 2 }).info(`again ${password}`, { f: password });
    expect(lines).toEqual([
      'debug login with *** {"header":"Basic ***","attempt":1,"ok":false}',
      'info url {"url":"https://x/?p=***"}',
      'warn echo: *** {}',
      'error upstream said {"body":"bad password ***"}',
      'info again *** {"who":"***","n":2,"f":"***"}',
    ]);
    expect(lines.join('\n')).not.toContain(password);
    expect(lines.join('\n')).not.toContain(basic);
  });

  it('leaves everything else as it was', () => {
    const lines: string[] = [];
    const log = redactingLogger(recording(lines), clientRedactor(user, password));
    log.info('page 2 of 3', { vehicle: 'CA 123-456', count: 3, none: null });
    log.info('no fields');
    expect(lines).toEqual([
      'info page 2 of 3 {"vehicle":"CA 123-456","count":3,"none":null}',
      'info no fields {}',
    ]);
  });
});
