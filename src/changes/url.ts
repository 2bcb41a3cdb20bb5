/**
 * Where the release notes live. For a simulator (or any base URL ending in `/rest`) the files are
 * beside `/rest` on the same origin: `http://host:port/rest` → `http://host:port/changelog/records.json`.
 * For the real service the documentation site publishes them (`DEFAULT_CHANGELOG_URL`), overridable
 * with the `FLEET_CHANGELOG_URL` environment variable.
 */

export const DEFAULT_CHANGELOG_URL = 'https://developer.cartrack.com/changelog/records.json';
export const CHANGELOG_ENV = 'FLEET_CHANGELOG_URL';

const REAL_HOST = /^fleetapi-[a-z]{2,3}\.(cartrack|karooooo)\.com$/i;

/** The records.json URL to watch for `baseUrl`; `override` (FLEET_CHANGELOG_URL) wins when set. */
export function changelogUrlFor(baseUrl: string, override?: string | null): string {
  if (override && override.trim() !== '') return override.trim();
  const u = new URL(baseUrl);
  if (REAL_HOST.test(u.hostname)) return DEFAULT_CHANGELOG_URL;
  const prefix = u.pathname.replace(/\/+$/, '').replace(/\/rest$/, '');
  return `${u.origin}${prefix}/changelog/records.json`;
}
