/**
 * Structured logging: one line per unit of work, written to stderr, as `key=value` pairs or
 * (FLEETSYNC_LOG_FORMAT=json, for log shippers) one JSON object per line with `time`, `level`,
 * `msg` and the fields. Every message and field goes through `redact` with the secrets
 * registered at start-up, so a password or token can never reach a log line even by accident.
 */
import type { Clock } from './time.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFormat = 'text' | 'json';
export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Replaces every occurrence of each secret (and its Basic-auth base64 forms) with `***`. */
export function makeRedactor(secrets: readonly (string | undefined)[]): (text: string) => string {
  const needles = new Set<string>();
  for (const s of secrets) {
    if (!s || s.length < 3) continue;
    needles.add(s);
    needles.add(encodeURIComponent(s));
  }
  const list = [...needles].sort((a, b) => b.length - a.length);
  return (text: string) => {
    let out = text.replace(/(authorization:\s*)(basic|bearer)\s+[A-Za-z0-9+/=._-]+/gi, '$1$2 ***');
    for (const n of list) out = out.split(n).join('***');
    return out;
  };
}

function formatValue(v: LogFields[string]): string {
  if (v === null || v === undefined) return '-';
  const s = String(v);
  return /[\s"=]/.test(s) ? JSON.stringify(s) : s;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** `text` (default): `time level msg k=v …`; `json`: one object per line. */
  format?: LogFormat;
  write?: (line: string) => void;
  secrets?: readonly (string | undefined)[];
  now: Clock;
  fields?: LogFields;
}

export function createLogger(opts: LoggerOptions): Logger {
  const level = opts.level ?? 'info';
  const write = opts.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const redact = makeRedactor(opts.secrets ?? []);
  const now = opts.now;
  const base = opts.fields ?? {};
  const emit = (lvl: LogLevel, msg: string, fields?: LogFields) => {
    if (ORDER[lvl] < ORDER[level]) return;
    const all = { ...base, ...fields };
    const time = new Date(now()).toISOString();
    if (opts.format === 'json') {
      // Redacted before serialising: JSON escaping must not hide a secret from the redactor.
      const record: Record<string, unknown> = { time, level: lvl, msg: redact(msg) };
      for (const [k, v] of Object.entries(all))
        if (!(k in record)) record[k] = typeof v === 'string' ? redact(v) : (v ?? null);
      write(redact(JSON.stringify(record)));
      return;
    }
    // Values are redacted before quoting too: escaping a quote or backslash would hide a secret.
    const parts = Object.entries(all).map(
      ([k, v]) => `${k}=${formatValue(typeof v === 'string' ? redact(v) : v)}`,
    );
    write(redact(`${time} ${lvl.padEnd(5)} ${redact(msg)}${parts.length ? ' ' + parts.join(' ') : ''}`));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger({ ...opts, fields: { ...base, ...fields } }),
  };
}

/** A logger that keeps its lines in memory, for tests. */
export function memoryLogger(
  level: LogLevel = 'debug',
  secrets: string[] = [],
): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = createLogger({ level, secrets, write: (l) => lines.push(l), now: Date.now });
  return Object.assign(log, { lines });
}

export const silentLogger: Logger = createLogger({ write: () => {}, now: Date.now });
