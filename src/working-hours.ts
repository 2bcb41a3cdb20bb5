/**
 * Working hours of an account, in its zone: which weekdays and which local hours count as work
 * (FLEETSYNC_WORKING_HOURS, or `working_hours` of an account in FLEETSYNC_CONFIG). Written as
 * `Mon-Fri 07:00-18:00` (the default); days as a range or a comma list (`Mon-Thu,Sat 06:30-15:00`).
 * Engine-on time outside them is "after hours" in the utilisation report.
 */
export interface WorkingHours {
  /** As configured (normalised spacing). */
  spec: string;
  /** ISO weekdays, 1 = Monday … 7 = Sunday, ascending. */
  weekdays: number[];
  /** Local minutes after midnight: work runs [startMin, endMin). */
  startMin: number;
  endMin: number;
}

export const DEFAULT_WORKING_HOURS_SPEC = 'Mon-Fri 07:00-18:00';
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const TIME = /^([01]\d|2[0-3]):([0-5]\d)$|^24:00$/;

const minutes = (t: string) => (t === '24:00' ? 1440 : Number(t.slice(0, 2)) * 60 + Number(t.slice(3)));
const dayOf = (name: string) => DAYS.indexOf(name.trim().toLowerCase().slice(0, 3)) + 1;

/** Parses a working-hours setting; the error says what is wrong and how it should look. */
export function parseWorkingHours(
  text: string,
): { ok: true; value: WorkingHours } | { ok: false; error: string } {
  const want = `write it like "${DEFAULT_WORKING_HOURS_SPEC}" (days, then local start-end)`;
  const m = /^\s*(\S+)\s+(\S+)\s*-\s*(\S+)\s*$/.exec(text);
  if (!m) return { ok: false, error: `${JSON.stringify(text)} is not working hours: ${want}` };
  const [, daysText, from, to] = m as unknown as [string, string, string, string];
  const days = new Set<number>();
  for (const part of daysText.split(',')) {
    const [a, b, extra] = part.split('-');
    const d0 = dayOf(a ?? '');
    const d1 = b === undefined ? d0 : dayOf(b);
    if (
      extra !== undefined ||
      d0 < 1 ||
      d1 < 1 ||
      (a ?? '').trim().length < 3 ||
      (b !== undefined && b.trim().length < 3)
    )
      return { ok: false, error: `${JSON.stringify(part)} is not a day or day range (Mon…Sun): ${want}` };
    if (d1 < d0)
      return { ok: false, error: `${JSON.stringify(part)}: a day range runs Monday to Sunday (${want})` };
    for (let d = d0; d <= d1; d++) days.add(d);
  }
  if (!TIME.test(from) || !TIME.test(to))
    return {
      ok: false,
      error: `${JSON.stringify(`${from}-${to}`)} is not a time range HH:MM-HH:MM: ${want}`,
    };
  const startMin = minutes(from);
  const endMin = minutes(to);
  if (endMin <= startMin) return { ok: false, error: `${from}-${to}: the end must be after the start` };
  return {
    ok: true,
    value: { spec: `${daysText} ${from}-${to}`, weekdays: [...days].sort((x, y) => x - y), startMin, endMin },
  };
}

export const DEFAULT_WORKING_HOURS: WorkingHours = (() => {
  const r = parseWorkingHours(DEFAULT_WORKING_HOURS_SPEC);
  if (!r.ok) throw new Error(r.error);
  return r.value;
})();
