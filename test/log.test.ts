/** The log line formats: key=value text, and one JSON object per line for log shippers; no secret in either. */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/log.ts';

const SECRET = 'pa"ss\\word 9';
const at = Date.parse('2026-03-02T10:00:00Z');

function lines(format: 'text' | 'json', level: 'debug' | 'info' = 'info') {
  const out: string[] = [];
  const log = createLogger({ format, level, secrets: [SECRET], now: () => at, write: (l) => out.push(l) });
  const child = log.child({ account: 'acme' });
  child.debug('window', { stream: 'trips', rows: 3 });
  child.info('stream', {
    stream: 'trips',
    units: 2,
    done: 2,
    rows: 5,
    note: `echo ${SECRET}`,
    none: undefined,
  });
  child.error(`failed with ${SECRET}`, { ok: false, n: null });
  return out;
}

describe('log formats', () => {
  it('json: one object per line with time, level, msg and the fields; secrets redacted', () => {
    const out = lines('json');
    expect(out).toHaveLength(2); // debug is below info
    const [info, error] = out.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(info).toEqual({
      time: '2026-03-02T10:00:00.000Z',
      level: 'info',
      msg: 'stream',
      account: 'acme',
      stream: 'trips',
      units: 2,
      done: 2,
      rows: 5,
      note: 'echo ***',
      none: null,
    });
    expect(error).toMatchObject({ level: 'error', msg: 'failed with ***', ok: false, n: null });
    for (const l of out) {
      expect(l).not.toContain('pa"ss');
      expect(l).not.toContain(JSON.stringify(SECRET).slice(1, -1));
    }
  });

  it('json at debug: the window lines too', () => {
    const out = lines('json', 'debug').map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(out.map((o) => `${o.level} ${o.msg}`)).toEqual([
      'debug window',
      'info stream',
      'error failed with ***',
    ]);
  });

  it('text: time, level, message and key=value pairs, secrets redacted', () => {
    const out = lines('text');
    expect(out[0]).toBe(
      '2026-03-02T10:00:00.000Z info  stream account=acme stream=trips units=2 done=2 rows=5 note="echo ***" none=-',
    );
    expect(out.join('\n')).not.toContain('pa"ss');
  });
});
