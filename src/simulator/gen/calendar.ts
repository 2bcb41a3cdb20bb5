/**
 * The local calendar of a fleet's history: one entry per local day with its first instant, so
 * generators place trips in local time (shifts, weekends, midnights, month ends) without
 * calling Intl per trip. Computed once per fleet and shared by every vehicle.
 */
import { addDays, localDate, localDayBounds } from '../../time.ts';

export interface CalendarDay {
  index: number;
  day: string; // YYYY-MM-DD
  startMs: number; // local midnight
  endMs: number; // next local midnight
  weekday: number; // 0 Sunday … 6 Saturday
  lastOfMonth: boolean;
}

export interface Calendar {
  timezone: string;
  days: CalendarDay[];
  startMs: number;
  endMs: number;
}

/** Yesterday in the zone, as `YYYY-MM-DD`. */
export function defaultEndDay(nowMs: number, timezone: string): string {
  return addDays(localDate(nowMs, timezone), -1);
}

export function buildCalendar(endDay: string, days: number, timezone: string): Calendar {
  if (!Number.isInteger(days) || days < 1) throw new RangeError(`days must be a positive integer: ${days}`);
  const first = addDays(endDay, -(days - 1));
  const out: CalendarDay[] = [];
  let { startMs } = localDayBounds(first, timezone);
  for (let i = 0; i < days; i++) {
    const day = addDays(first, i);
    const next = addDays(day, 1);
    const endMs = localDayBounds(next, timezone).startMs;
    out.push({
      index: i,
      day,
      startMs,
      endMs,
      weekday: new Date(`${day}T00:00:00Z`).getUTCDay(),
      lastOfMonth: next.slice(8) === '01',
    });
    startMs = endMs;
  }
  const last = out[out.length - 1]!;
  return { timezone, days: out, startMs: out[0]!.startMs, endMs: last.endMs };
}
