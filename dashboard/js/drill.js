// The drill-down shared by the Mileage and Fuel pages: fleet → vehicle → month. Every level is a
// plain link (vehicle=…, month=…), so it can be shared and the back button works.
import { hrefWith } from './page.js';
import { dayText } from './table.js';
/** @typedef {import('./types.d.ts').Filter} Filter */
/** @typedef {import('./types.d.ts').Section<'trips'>} TripsSection */

/**
 * The registration the filter bar shows for a vehicle id (or `#id` before the list loads).
 * @param {string} id
 */
export const registrationOf = (id) =>
  document.querySelector(`#f-vehicle option[value="${CSS.escape(String(id))}"]`)?.textContent ?? `#${id}`;

/**
 * "the fleet" or the chosen vehicle's registration, for section titles.
 * @param {Filter} filter
 */
export const who = (filter) => (filter.vehicle ? registrationOf(filter.vehicle) : 'the fleet');

/**
 * A page header that shows the breadcrumb Fleet › vehicle › month of `page` once drilled in.
 * @param {string} page
 * @returns {import('./types.d.ts').HeaderHook}
 */
export function drillCrumbs(page) {
  return (box, _status, filter, drill) => {
    box.replaceChildren();
    if (!filter.vehicle && !drill.month) return;
    const nav = document.createElement('p');
    nav.id = 'breadcrumb';
    nav.className = 'breadcrumb';
    /** @param {string} label @param {string | null} href */
    const add = (label, href) => {
      if (nav.childNodes.length) nav.append(' › ');
      const el = document.createElement(href ? 'a' : 'strong');
      el.textContent = label;
      if (href && el instanceof HTMLAnchorElement) el.href = href;
      nav.append(el);
    };
    add('Fleet', hrefWith(page, { vehicle: null, month: null }));
    if (filter.vehicle)
      add(registrationOf(filter.vehicle), drill.month ? hrefWith(page, { month: null }) : null);
    if (drill.month) add(dayText(drill.month), null); // 'Oct 2026', as the tables write a month
    box.append(nav);
  };
}

/**
 * The drill-down's last level on the Mileage and Fuel pages: the trips of the vehicle-month.
 * @param {string} note what the trips are for on the page
 * @returns {TripsSection}
 */
export const monthTrips = (note) => ({
  id: 'trips',
  title: 'Trips in the month',
  heading: (f, d) => `Trips of ${who(f)} starting in ${dayText(d.month)}`,
  report: 'trips',
  when: (f, d) => Boolean(d.month && f.vehicle),
  query: (f, d) => ({ vehicle: f.vehicle, month: d.month }),
  note,
  tableOpts: { hide: ['zone', 'registration', 'vehicle_id', 'department', 'local_date', 'utc_date'] },
});
