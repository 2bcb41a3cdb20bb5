/**
 * A text file a user wrote (the accounts file, the prices file, `.env`), as UTF-8 without the byte
 * order mark that Windows editors (Notepad, Excel's "CSV UTF-8") put first: with it, the first
 * key of a JSON file or the first column of a CSV file is not what it looks like.
 */
import { readFileSync } from 'node:fs';

export const stripBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

export const readUserText = (path: string) => stripBom(readFileSync(path, 'utf8'));
