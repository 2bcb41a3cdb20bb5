/** Regional base URLs: `https://fleetapi-{cc}.cartrack.com/rest`, except ke and sa on karooooo.com. */
export const COUNTRY_CODES = [
  'au', 'bw', 'es', 'hk', 'id', 'ke', 'kh', 'me', 'mw', 'my', 'mz', 'na', 'ng', 'nz',
  'ph', 'pl', 'pt', 'rw', 'sa', 'sg', 'sz', 'th', 'tz', 'vn', 'za', 'zm', 'zw',
] as const; // prettier-ignore
/** Hosts the published servers list also names (Swaziland's older code, Zanzibar). */
export const EXTRA_REGION_CODES = ['sw', 'znz'] as const;

const KAROOOOO = new Set(['ke', 'sa']);

/** Every code FLEET_COUNTRY (or an account's `country`) accepts, for an error that names them all. */
export const ACCEPTED_REGION_CODES = [...COUNTRY_CODES, ...EXTRA_REGION_CODES].sort().join(', ');

/** The error of an unknown region code: the value given and every accepted one. */
export const unknownCountryText = (given: unknown) =>
  `unknown country code ${JSON.stringify(given)}; the accepted codes are ${ACCEPTED_REGION_CODES} (or set FLEET_BASE_URL instead)`;

export function isCountryCode(cc: string): boolean {
  const c = cc.toLowerCase();
  return (
    (COUNTRY_CODES as readonly string[]).includes(c) || (EXTRA_REGION_CODES as readonly string[]).includes(c)
  );
}

export function baseUrlForCountry(cc: string): string {
  const c = cc.toLowerCase();
  if (!isCountryCode(c)) throw new RangeError(`unknown country code ${JSON.stringify(cc)}`);
  return `https://fleetapi-${c}.${KAROOOOO.has(c) ? 'karooooo.com' : 'cartrack.com'}/rest`;
}
