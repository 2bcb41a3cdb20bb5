/**
 * The `.env` file, read once at start: `KEY=value` lines (an `export ` prefix is allowed), comment
 * lines starting with `#`, and quotes. A variable already set in the environment wins over the
 * file (even when set to an empty value), so a scheduler's or a shell's setting is never
 * overridden by a forgotten file.
 *
 * The rule for `#` (a token or a password may hold one): in an unquoted value a `#` is part of
 * the value; only a `#` after whitespace starts a comment. `FLEETSYNC_TOKEN=fleet-dashboard-#9f2c`
 * is the whole token; `FLEETSYNC_PORT=8080  # the dashboard` is 8080. A value with whitespace
 * before a `#` is quoted ('…' as written, "…" with \n \" \\ escapes). Node's own loader cut every
 * unquoted value at the first `#`, which turned such a token into a shorter one the server then
 * accepted, and such a password into a refused login. A line that is not a setting is refused,
 * naming the line.
 *
 * Where: `.env` in the current working directory (for `npm run`, the checkout's root), when it
 * exists; or the file `FLEETSYNC_ENV_FILE` names, which must exist (`/dev/null` reads none).
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { FleetsyncError } from './errors.ts';
import { readUserText, stripBom } from './text-file.ts';

export interface EnvFileOptions {
  env: Record<string, string | undefined>;
  cwd: string;
}

const KEY = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*/;

/** Parses the text of an env file into its settings, in order; throws naming the first bad line. */
export function parseEnvFile(text: string, where: string): Map<string, string> {
  const lines = stripBom(text).split(/\r?\n/);
  const out = new Map<string, string>();
  const bad = (n: number, why: string) => new FleetsyncError('E_CONFIG', `${where} line ${n}: ${why}`);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const n = i + 1;
    if (/^\s*(#|$)/.test(line)) continue;
    const m = KEY.exec(line.trimStart());
    if (!m) throw bad(n, 'not a setting (expected KEY=value, or a comment starting with #)');
    const key = m[1]!;
    let rest = line.trimStart().slice(m[0].length);
    const quote = rest[0];
    if (quote !== '"' && quote !== "'") {
      // Unquoted: a `#` after whitespace starts a comment; any other `#` is part of the value.
      const comment = /(^|\s)#/.exec(rest);
      out.set(key, (comment ? rest.slice(0, comment.index) : rest).trim());
      continue;
    }
    // Quoted: up to the closing quote, which may be on a later line.
    let body = '';
    let j = i;
    rest = rest.slice(1);
    for (;;) {
      const close = quote === "'" ? rest.indexOf("'") : closingDoubleQuote(rest);
      if (close >= 0) {
        body += rest.slice(0, close);
        rest = rest.slice(close + 1);
        break;
      }
      body += rest + '\n';
      if (++j >= lines.length) throw bad(n, `the quote ${quote} is never closed`);
      rest = lines[j]!;
    }
    if (!/^\s*(#.*)?$/.test(rest))
      throw bad(j + 1, `text after the closing quote of ${key} (only a # comment may follow)`);
    out.set(key, quote === '"' ? unescape(body) : body);
    i = j;
  }
  return out;
}

function closingDoubleQuote(s: string): number {
  for (let k = 0; k < s.length; k++) {
    if (s[k] === '\\') k++;
    else if (s[k] === '"') return k;
  }
  return -1;
}

const unescape = (s: string) =>
  s.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === 'r' ? '\r' : c === 't' ? '\t' : c));

/** Loads the env file if there is one into `env` (what is set already wins); returns its path (null when none was read). */
export function loadEnvFile(opts: EnvFileOptions): string | null {
  const named = opts.env.FLEETSYNC_ENV_FILE?.trim();
  const path = named ? resolve(opts.cwd, named) : resolve(opts.cwd, '.env');
  let isFile: boolean;
  try {
    const st = statSync(path);
    isFile = st.isFile() || st.isCharacterDevice();
  } catch (e) {
    if (!named && (e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new FleetsyncError(
      'E_CONFIG',
      `cannot read the environment file ${path}${named ? ' (FLEETSYNC_ENV_FILE)' : ''}: ${(e as Error).message}`,
      { cause: e },
    );
  }
  if (!isFile)
    throw new FleetsyncError(
      'E_CONFIG',
      `the environment file ${path}${named ? ' (FLEETSYNC_ENV_FILE)' : ''} is not a regular file`,
    );
  let text: string;
  try {
    text = readUserText(path);
  } catch (e) {
    throw new FleetsyncError(
      'E_CONFIG',
      `cannot read the environment file ${path}: ${(e as Error).message}`,
      {
        cause: e,
      },
    );
  }
  for (const [key, value] of parseEnvFile(text, `the environment file ${path}`))
    if (opts.env[key] === undefined) opts.env[key] = value;
  return path;
}
