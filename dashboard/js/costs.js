// The costs and CO₂ tiles of the overview. Fuel cost and CO₂ are the sums of one column of the
// costs download over every row (the API's totals, computed in SQL), so they tie to a spreadsheet
// sum of the CSV; that report is per vehicle and whole local month, so over a range that is not
// whole months the tiles say so on their face ("Oct 2026, whole months") with those months'
// coverage. Toll charges are the range's passages (kpis: the toll_charges report's rows), the
// same passages as the Toll passages tile (issue 25: one period per screen). A figure nothing is
// known about shows '—', never 0, and each tile says what it leaves out (months without a fuel
// price, passages without a tariff); a filter that matches no vehicle says so.
import { getReport, qs } from './api.js';
import { NO_VEHICLE } from './page.js';
import { coverageNote, wholeMonthsNote } from './period.js';
import { fmtQty } from './table.js';
import { tile as makeTile } from './tiles.js';

/** @param {string} id @param {string} label @param {string} value @param {string} [sub] */
const tile = (id, label, value, sub) => makeTile(`kpi-${id}`, label, value, sub);

/** @typedef {import('./types.d.ts').ReportRow<'costs'>} CostRow */

/**
 * The line under the toll-charges tile: its reason when the charges are unknown (passages, none
 * with a tariff: '—', never 0.00), "partial" when some passages have no tariff (issue 25).
 * @param {boolean} known @param {number} passages @param {number} noTariff
 */
function tollNote(known, passages, noTariff) {
  const counted = `${fmtQty(passages)} passages, ${fmtQty(noTariff)} without a tariff`;
  if (!known) return passages > 0 ? `unknown: ${counted}` : counted;
  return noTariff > 0 ? `partial: ${counted} (not counted)` : counted;
}

/**
 * @param {import('./types.d.ts').ReportAnswerOf<'costs'>} result
 * @param {import('./types.d.ts').SectionParts} parts
 */
export async function costTiles(result, { tableDiv, current }) {
  const rows = result.rows;
  const t = result.totals;
  const { from, to, vehicle, department } = result.params;
  // the range's passages and charges, and the whole months' coverage, from the kpis answer
  const kpis = await getReport('kpis', qs({ from, to, vehicle, department }));
  if (!current()) return;
  /** @type {Partial<import('./types.d.ts').ReportRow<'kpis'>>} */
  const k = kpis.rows[0] ?? {};
  if (k.coverage === 'no_vehicle') {
    tableDiv.replaceChildren(
      tile('fuel-cost', 'Fuel cost', NO_VEHICLE, NO_VEHICLE),
      tile('toll-charges', 'Toll charges', NO_VEHICLE, NO_VEHICLE),
      tile('co2', 'CO₂ from fuel', NO_VEHICLE, NO_VEHICLE),
    );
    return;
  }
  const whole = rows.length >= result.total;
  /** @param {(r: CostRow) => boolean} p */
  const some = (p) => rows.some(p);
  /** @param {(r: CostRow) => boolean} p */
  const count = (p) => rows.filter(p).length;
  const currency = rows.find((r) => r.currency)?.currency ?? '';
  const known = (/** @type {keyof CostRow} */ col) => !whole || some((r) => r[col] !== null);
  const unpriced = count((r) => r.fuel_used_l !== null && r.fuel_cost === null);
  const noCo2 = count((r) => r.fuel_used_l !== null && r.co2_kg === null);
  const noPrices = rows.length > 0 && rows.every((r) => r.fuel_type === null);
  // the monthly figures' period and coverage, when the range is not whole months
  const months = wholeMonthsNote(from, to);
  const monthsCov = coverageNote(k.months_coverage, k.months_synced_days, k.months_open_days, k.months_days);
  /** @param {string} line */
  const monthly = (line) => [months, months ? monthsCov : '', line].filter(Boolean).join('; ');
  const passages = k.toll_passages;
  tableDiv.replaceChildren(
    tile(
      'fuel-cost',
      'Fuel cost',
      known('fuel_cost') ? fmtQty(t.fuel_cost, currency, 2) : '',
      monthly(
        noPrices
          ? 'no prices file loaded (FLEETSYNC_PRICES)'
          : unpriced
            ? `${unpriced} vehicle-month${unpriced === 1 ? '' : 's'} without a fuel price left out`
            : 'every vehicle-month with fuel priced',
      ),
    ),
    tile(
      'toll-charges',
      'Toll charges',
      k.toll_charges_known === null || k.toll_charges_known === undefined
        ? ''
        : fmtQty(k.toll_charges_known, currency, 2),
      passages === null || passages === undefined
        ? ''
        : tollNote(
            k.toll_charges_known !== null && k.toll_charges_known !== undefined,
            passages,
            k.toll_no_tariff ?? 0,
          ),
    ),
    tile(
      'co2',
      'CO₂ from fuel',
      known('co2_kg') ? fmtQty(t.co2_kg, 'kg', 0) : '',
      monthly(
        noCo2
          ? `${noCo2} vehicle-month${noCo2 === 1 ? '' : 's'} with fuel but no factor left out`
          : 'litres × factor per fuel type',
      ),
    ),
  );
}
