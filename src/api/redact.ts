/**
 * Redaction for the API client: whatever logger the caller passes, and every error message the
 * client builds, go through a redactor that knows the password and the Basic credential, so
 * neither can leak even when an upstream error message echoes them.
 */
import type { LogFields, Logger } from '../log.ts';
import { makeRedactor } from '../log.ts';

export type Redact = (text: string) => string;

export function clientRedactor(username: string, password: string): Redact {
  const basic = Buffer.from(`${username}:${password}`, 'utf8').toString('base64');
  return makeRedactor([password, basic]);
}

function redactFields(fields: LogFields | undefined, redact: Redact): LogFields | undefined {
  if (!fields) return fields;
  const out: LogFields = {};
  for (const [k, v] of Object.entries(fields)) out[k] = typeof v === 'string' ? redact(v) : v;
  return out;
}

export function redactingLogger(log: Logger, redact: Redact): Logger {
  return {
    debug: (m, f) => log.debug(redact(m), redactFields(f, redact)),
    info: (m, f) => log.info(redact(m), redactFields(f, redact)),
    warn: (m, f) => log.warn(redact(m), redactFields(f, redact)),
    error: (m, f) => log.error(redact(m), redactFields(f, redact)),
    child: (f) => redactingLogger(log.child(redactFields(f, redact) ?? {}), redact),
  };
}
