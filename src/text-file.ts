/**
 * A text file a user wrote (the accounts file, the prices file, `.env`), as UTF-8 without the byte
 * order mark that Windows editors (Notepad, Excel's "CSV UTF-8") put first: with it, the first
 * key of a JSON file or the first column of a CSV file is not what it looks like. And how many of
 * a bad file's problems a message lists.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const stripBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

export const readUserText = (path: string) => stripBom(readFileSync(path, 'utf8'));

export const shaOf = (text: string) => createHash('sha256').update(text).digest('hex');

/** The SHA-256 of a user file's text as `readUserFile` gives it; null when it cannot be read. */
export function userFileSha(path: string): string | null {
  try {
    return shaOf(readUserText(path));
  } catch {
    return null; // readUserFile names why
  }
}

/**
 * A user's input file (the prices file, the service plan): its text, its SHA-256 and whether it
 * reads as JSON (by its name, else by its first character), or why it cannot be read — one
 * problem, not an exception.
 */
export function readUserFile(
  path: string,
): { text: string; sha256: string; isJson: boolean } | { problem: string } {
  let text: string;
  try {
    text = readUserText(path);
  } catch (e) {
    return {
      problem: (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message,
    };
  }
  const isJson = /\.json$/i.test(path) || (!/\.csv$/i.test(path) && /^\s*\{/.test(text));
  return { text, sha256: shaOf(text), isJson };
}

/** The most problems a message lists (a file with a wrong column has one per row). */
export const MAX_LISTED_PROBLEMS = 20;

/** The first MAX_LISTED_PROBLEMS lines, then `… and N more` when there are more. */
export function firstProblems(lines: readonly string[]): string[] {
  const shown = lines.slice(0, MAX_LISTED_PROBLEMS);
  const more = lines.length - shown.length;
  return more > 0 ? [...shown, `… and ${more.toLocaleString('en')} more`] : shown;
}
