// The costs and CO₂ tiles of the overview (report `costs`): each tile is the sum of one column of
// the costs download over every row (the API's totals, computed in SQL), so it ties to a
// spreadsheet sum of the CSV. A figure nothing is known about shows '—', never 0, and each tile
// says what it leaves out (months without a fuel price, passages without a tariff).
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
export function costTiles(result, { tableDiv }) {
  const rows = result.rows;
  const t = result.totals;
  const whole = rows.length >= result.total;
  /** @param {(r: CostRow) => boolean} p */
  const some = (p) => rows.some(p);
  /** @param {(r: CostRow) => boolean} p */
  const count = (p) => rows.filter(p).length;
  const currency = rows.find((r) => r.currency)?.currency ?? '';
  const known = (/** @type {keyof CostRow} */ col) => !whole || some((r) => r[col] !== null);
  const unpriced = count((r) => r.fuel_used_l !== null && r.fuel_cost === null);
  const noTariff = t.toll_no_tariff ?? 0;
  const noCo2 = count((r) => r.fuel_used_l !== null && r.co2_kg === null);
  const noPrices = rows.length > 0 && rows.every((r) => r.fuel_type === null);
  tableDiv.replaceChildren(
    tile(
      'fuel-cost',
      'Fuel cost',
      known('fuel_cost') ? fmtQty(t.fuel_cost, currency, 2) : '',
      noPrices
        ? 'no prices file loaded (FLEETSYNC_PRICES)'
        : unpriced
          ? `${unpriced} vehicle-month${unpriced === 1 ? '' : 's'} without a fuel price left out`
          : 'every vehicle-month with fuel priced',
    ),
    tile(
      'toll-charges',
      'Toll charges',
      known('toll_charges_known') ? fmtQty(t.toll_charges_known, currency, 2) : '',
      tollNote(known('toll_charges_known'), t.toll_passages ?? 0, noTariff),
    ),
    tile(
      'co2',
      'CO₂ from fuel',
      known('co2_kg') ? fmtQty(t.co2_kg, 'kg', 0) : '',
      noCo2
        ? `${noCo2} vehicle-month${noCo2 === 1 ? '' : 's'} with fuel but no factor left out`
        : 'litres × factor per fuel type',
    ),
  );
}
