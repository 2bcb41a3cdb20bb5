// One period per screen (issue 25): what a tile's figure covers, said on its face when it is not
// the filter's range. Distance and fuel come from windows taken whole (kpis.sql: span_basis), the
// monthly costs from whole local months; passages, charges, trips and bookings are the range's.
import { dayText, fmtQty } from './table.js';

/**
 * Whole local months as people write them: "Oct 2026", "Sep–Nov 2026", "Dec 2025–Feb 2026".
 * @param {string} from YYYY-MM-DD (or YYYY-MM)
 * @param {string} to YYYY-MM-DD (or YYYY-MM)
 */
export function monthsText(from, to) {
  const a = dayText(from.slice(0, 7));
  const b = dayText(to.slice(0, 7));
  if (a === b) return a;
  return from.slice(0, 4) === to.slice(0, 4) ? `${a.slice(0, -5)}–${b}` : `${a}–${b}`;
}

/**
 * True when [from, to] (local days, inclusive) is made of whole local months.
 * @param {string} from
 * @param {string} to
 */
export function isWholeMonths(from, to) {
  const [y, m] = to.split('-').map(Number);
  if (!y || !m) return false;
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return from.endsWith('-01') && Number(to.slice(8, 10)) === last;
}

/**
 * "Sep–Nov 2026, whole months" when a figure covers the whole months of a range that is not
 * itself whole months; '' when it covers the range.
 * @param {string} from the range's first day
 * @param {string} to the range's last day
 */
export function wholeMonthsNote(from, to) {
  return isWholeMonths(from, to) ? '' : `${monthsText(from, to)}, whole months`;
}

/**
 * How much of a figure's own days was synced, when not all: "partial: 12 of 30 days synced"
 * (", 3 more pulled but still open for late data" when some are: the About sheet's words).
 * @param {string | null | undefined} coverage complete / partial / not_synced
 * @param {number | null | undefined} synced settled days
 * @param {number | null | undefined} open days still open for late data (counted)
 * @param {number | null | undefined} days the ended days
 */
export function coverageNote(coverage, synced, open, days) {
  if (!coverage || coverage === 'complete' || coverage === 'no_vehicle' || !days) return '';
  const word = coverage === 'not_synced' ? 'not synced' : 'partial';
  // a day open for late data is pulled (its figures are in) but not settled: counted apart, or
  // "88 of 88 days synced, 3 still open" reads as complete beside the word partial
  return (
    `${word}: ${fmtQty(synced ?? 0)} of ${fmtQty(days)} days synced` +
    (open ? `, ${fmtQty(open)} more pulled but still open for late data` : '')
  );
}

/**
 * What distance and fuel cover (kpis' span_*): '' when the range, else its whole months and,
 * when they are not wholly synced, how much of them is.
 * @param {Partial<import('./types.d.ts').ReportRow<'kpis'>>} k
 */
export function spanNote(k) {
  if (!k.span_from || !k.span_to) return '';
  const months = k.span_basis === 'whole_months' ? `${monthsText(k.span_from, k.span_to)}, whole months` : '';
  const cov = coverageNote(k.span_coverage, k.span_synced_days, k.span_open_days, k.span_days);
  // the range's own coverage is said above the tiles; a span that is the range says nothing more
  return [months, months ? cov : ''].filter(Boolean).join('; ');
}
