/**
 * The `.env` file, read once at start by Node's built-in loader (`process.loadEnvFile`, no
 * dotenv): `KEY=value` lines, `#` comments, quotes. A variable already set in the environment
 * wins over the file (even when set to an empty value), so a scheduler's or a shell's setting is
 * never overridden by a forgotten file.
 *
 * Where: `.env` in the current working directory (for `npm run`, the checkout's root), when it
 * exists; or the file `FLEETSYNC_ENV_FILE` names, which must exist (`/dev/null` reads none).
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { FleetsyncError } from './errors.ts';

export interface EnvFileOptions {
  env: Record<string, string | undefined>;
  cwd: string;
  /** Node's loader; it writes into process.env, so `env` is process.env in production. */
  load?: (path: string) => void;
}

/** Loads the env file if there is one; returns its path (null when none was read). */
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
  try {
    (opts.load ?? ((p: string) => process.loadEnvFile(p)))(path);
  } catch (e) {
    throw new FleetsyncError(
      'E_CONFIG',
      `cannot read the environment file ${path}: ${(e as Error).message}`,
      {
        cause: e,
      },
    );
  }
  return path;
}
