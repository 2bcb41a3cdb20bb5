/**
 * Window grids in the account's local calendar. Windows are half-open [startMs, endMs).
 * - month grid: local months (≤ 31 days, the trips/odometer/fuel/bookings cap);
 * - day grid: local days, a 25-hour DST day split in two so no window exceeds 24 hours
 *   (the visits / bulk-fuel cap).
 * Grid windows are clipped to the wanted range, so a range that starts mid-month gives a
 * shorter first window.
 */
import {
  DAY_MS,
  HOUR_MS,
  addDays,
  localDate,
  localDayBounds,
  localMonth,
  localMonthBounds,
  parseLocal,
} from '../time.ts';

export interface Window {
  startMs: number;
  endMs: number;
}

function clip(w: Window, fromMs: number, toMs: number): Window | null {
  const s = Math.max(w.startMs, fromMs);
  const e = Math.min(w.endMs, toMs);
  return e > s ? { startMs: s, endMs: e } : null;
}

export function monthWindows(fromMs: number, toMs: number, zone: string): Window[] {
  const out: Window[] = [];
  let month = localMonth(fromMs, zone);
  for (;;) {
    const b = localMonthBounds(month, zone);
    if (b.startMs >= toMs) break;
    const c = clip(b, fromMs, toMs);
    if (c) out.push(c);
    month = localMonth(b.endMs, zone);
  }
  return out;
}

/** The local midnight at or before `ms`: where windows reaching into the look-back are cut. */
export const settledCut = (ms: number, zone: string): number =>
  localDayBounds(localDate(ms, zone), zone).startMs;

/** `w` cut at `cut` when `cut` lies strictly inside it, else `w` alone. */
export const cutAt = (w: Window, cut: number): Window[] =>
  cut > w.startMs && cut < w.endMs
    ? [
        { startMs: w.startMs, endMs: cut },
        { startMs: cut, endMs: w.endMs },
      ]
    : [w];

export function dayWindows(fromMs: number, toMs: number, zone: string, maxMs = DAY_MS): Window[] {
  const out: Window[] = [];
  let day = localDate(fromMs, zone);
  for (;;) {
    const b = localDayBounds(day, zone);
    if (b.startMs >= toMs) break;
    const c = clip(b, fromMs, toMs);
    if (c) {
      if (c.endMs - c.startMs > maxMs) {
        const mid = c.startMs + Math.ceil((c.endMs - c.startMs) / 2 / HOUR_MS) * HOUR_MS;
        out.push({ startMs: c.startMs, endMs: mid }, { startMs: mid, endMs: c.endMs });
      } else out.push(c);
    }
    day = addDays(day, 1);
  }
  return out;
}

/** The point of (non-empty) `points` nearest `target` (the first of two as near). */
const nearest = (points: readonly number[], target: number): number =>
  points.reduce((a, b) => (Math.abs(b - target) < Math.abs(a - target) ? b : a));

/** The local midnights strictly inside `w`. */
function midnightsInside(w: Window, zone: string): number[] {
  const mids: number[] = [];
  let day = addDays(localDate(w.startMs, zone), 1);
  for (;;) {
    const m = parseLocal(`${day} 00:00:00`, zone);
    if (m === null || m >= w.endMs) break;
    if (m > w.startMs) mids.push(m);
    day = addDays(day, 1);
  }
  return mids;
}

/**
 * Splits a window at the local midnight nearest its middle. Returns null when the window holds
 * at most one local day (no midnight strictly inside it).
 */
export function splitAtMidnight(w: Window, zone: string): [Window, Window] | null {
  const mids = midnightsInside(w, zone);
  if (mids.length === 0) return null;
  const mid = nearest(mids, (w.startMs + w.endMs) / 2);
  return [
    { startMs: w.startMs, endMs: mid },
    { startMs: mid, endMs: w.endMs },
  ];
}

/**
 * `w` cut into `parts` windows of about equal length: at local midnights, or at whole hours when
 * no midnight lies inside it. Fewer pieces when it has fewer such points; `[w]` when it has none
 * (a window of one hour or less).
 */
export function splitEvenly(w: Window, parts: number, zone: string): Window[] {
  if (parts <= 1) return [w];
  const points = midnightsInside(w, zone);
  if (points.length === 0)
    for (let h = Math.floor(w.startMs / HOUR_MS + 1) * HOUR_MS; h < w.endMs; h += HOUR_MS) points.push(h);
  const cuts = new Set<number>();
  for (let k = 1; k < parts && points.length; k++) {
    cuts.add(nearest(points, w.startMs + ((w.endMs - w.startMs) * k) / parts));
  }
  const out: Window[] = [];
  let start = w.startMs;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    out.push({ startMs: start, endMs: c });
    start = c;
  }
  out.push({ startMs: start, endMs: w.endMs });
  return out;
}

/** Local days `from`..`to` inclusive → [start of from, start of the day after to). */
export function dayRange(fromDay: string, toDay: string, zone: string): Window {
  return { startMs: localDayBounds(fromDay, zone).startMs, endMs: localDayBounds(toDay, zone).endMs };
}

export const windowLabel = (w: Window) =>
  `${new Date(w.startMs).toISOString()}/${new Date(w.endMs).toISOString()}`;
