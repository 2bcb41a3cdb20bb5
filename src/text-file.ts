/**
 * A text file a user wrote (the accounts file, the prices file, `.env`), as UTF-8 without the byte
 * order mark that Windows editors (Notepad, Excel's "CSV UTF-8") put first: with it, the first
 * key of a JSON file or the first column of a CSV file is not what it looks like. And how many of
 * a bad file's problems a message lists.
 */
import { readFileSync } from 'node:fs';

export const stripBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

export const readUserText = (path: string) => stripBom(readFileSync(path, 'utf8'));

/** The most problems a message lists (a file with a wrong column has one per row). */
export const MAX_LISTED_PROBLEMS = 20;

/** The first MAX_LISTED_PROBLEMS lines, then `… and N more` when there are more. */
export function firstProblems(lines: readonly string[]): string[] {
  const shown = lines.slice(0, MAX_LISTED_PROBLEMS);
  const more = lines.length - shown.length;
  return more > 0 ? [...shown, `… and ${more.toLocaleString('en')} more`] : shown;
}
