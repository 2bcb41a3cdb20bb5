import { describe, expect, it } from 'vitest';
import { BOOKING_STATUS_LABELS, describedAs, humanHeader, presentation } from '../../src/reports/columns.ts';
import { REPORT_NAMES, getReport } from '../../src/reports/registry.ts';
import { describeColumns } from '../../src/reports/run.ts';

describe('column presentation', () => {
  it('describes every column of every report (a new column needs a label, a unit and a display)', () => {
    const missing: string[] = [];
    for (const n of REPORT_NAMES)
      for (const c of getReport(n)!.columns) if (!describedAs(n, c.name)) missing.push(`${n}.${c.name}`);
    expect(missing).toEqual([]);
  });

  it('shows the unit once in the header and never a raw column name', () => {
    const mileage = getReport('mileage')!;
    const headers = mileage.columns.map((c) => humanHeader(presentation('mileage', c)));
    expect(headers).toContain('Distance (km)');
    expect(headers).toContain('Vehicle ID');
    for (const h of headers) expect(h).not.toMatch(/_/);
  });

  it('identifiers are text, shares are percents, durations are durations', () => {
    const p = (r: string, col: string) =>
      presentation(
        r,
        getReport(r)!.columns.find((c) => c.name === col)!,
      );
    expect(p('trips', 'trip_id').display).toBe('id');
    expect(p('trips', 'vehicle_id').display).toBe('id');
    expect(p('carpool_departments', 'late_return_rate')).toMatchObject({ display: 'percent', places: 1 });
    expect(p('tolls', 'duration_s').display).toBe('duration');
    expect(p('fuel', 'fuel_used_l')).toMatchObject({ unit: 'L', places: 1 });
  });

  it('every booking status the contract lists has a label, and the API sends enum labels with the column', () => {
    expect(Object.keys(BOOKING_STATUS_LABELS)).toHaveLength(11);
    const cols = describeColumns(getReport('carpool')!, []);
    const status = cols.find((c) => c.name === 'booking_status')!;
    expect(status.display).toBe('enum');
    expect(status.labels?.BOOKING_STATUS_RETURNED_LATE).toBe('Returned late');
    const reasons = describeColumns(getReport('excluded_windows')!, [
      { code: 'odometer_reset', stream: 'odometer', label: 'odometer reset' },
    ]).find((c) => c.name === 'reason')!;
    expect(reasons.labels).toEqual({ odometer_reset: 'odometer reset' });
    expect(reasons.display).toBe('enum');
  });

  it('a priced toll passage reads "Priced", not the column’s own name "Tariff"', () => {
    const tariff = describeColumns(getReport('toll_charges')!, []).find((c) => c.name === 'tariff_status')!;
    expect(tariff.label).toBe('Tariff');
    expect(tariff.labels).toMatchObject({ tariff: 'Priced', no_tariff: 'No tariff' });
  });
});
