/**
 * Request windows: a half-open [fromMs, toMs) of instants becomes the API's inclusive local
 * bounds `formatLocal(fromMs)` … `formatLocal(toMs - 1000)`, after checking the endpoint's cap.
 *
 * The cap is checked on the wall-clock span the server sees (it parses local strings), so a
 * 31-local-day window that contains a DST fall-back (31 days + 1 h of instants) still passes,
 * and a 25-hour local day passes the 24 h cap (its bounds read 00:00:00 … 23:59:59).
 */
import { FleetsyncError } from '../errors.ts';
import { DAY_MS, formatLocal } from '../time.ts';

export const CAP_31_DAYS = 31 * DAY_MS;
export const CAP_24_HOURS = DAY_MS;

export interface LocalBounds {
  start: string;
  end: string;
}

const wallMs = (local: string) => Date.parse(`${local.replace(' ', 'T')}Z`);

export function localBounds(
  fromMs: number,
  toMs: number,
  zone: string,
  capMs: number,
  endpoint: string,
): LocalBounds {
  if (!Number.isFinite(fromMs) || !Number.isFinite(toMs) || toMs - fromMs < 1000)
    throw new FleetsyncError('E_WINDOW_CAP', `${endpoint}: empty or inverted window [${fromMs}, ${toMs})`, {
      details: { endpoint, fromMs, toMs },
    });
  const start = formatLocal(fromMs, zone);
  const end = formatLocal(toMs - 1000, zone);
  const span = wallMs(end) - wallMs(start) + 1000; // inclusive end second
  if (span > capMs)
    throw new FleetsyncError(
      'E_WINDOW_CAP',
      `${endpoint}: window ${start} … ${end} spans ${Math.round(span / 3_600_000)} h, over the endpoint's cap of ${capMs / 3_600_000} h`,
      { details: { endpoint, fromMs, toMs, capMs } },
    );
  return { start, end };
}
