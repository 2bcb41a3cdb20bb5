/**
 * The page checks' record identity (src/api/paginate.ts `hashRecord`) is the record's JSON, hashed
 * without writing the JSON: two records hash alike exactly when JSON.stringify writes them alike.
 */
import { describe, expect, it } from 'vitest';
import { hashRecord } from '../../src/api/paginate.ts';

const RECORDS: unknown[] = [
  { vehicle_id: 1, registration: 'AB 1', ms: 1_712_000_000_000, litres: 40.5, accurate: true },
  { vehicle_id: 1, registration: 'AB 1', ms: 1_712_000_000_000, litres: 40.5, accurate: false },
  { vehicle_id: 1, registration: 'AB 1', ms: 1_712_000_000_000, litres: 40.5, accurate: null },
  { vehicle_id: 1, registration: 'AB 1', ms: 1_712_000_000_000, litres: 40.50000001, accurate: true },
  { registration: 'AB 1', vehicle_id: 1, ms: 1_712_000_000_000, litres: 40.5, accurate: true }, // other key order
  { vehicle_id: 1, registration: 'AB 1', ms: 1_712_000_000_000, litres: 40.5, accurate: true, x: undefined },
  { vehicle_id: 1, registration: 'AB 11', ms: 1_712_000_000_000, litres: 40.5, accurate: true },
  { vehicle_id: '1', registration: 'AB 1', ms: 1_712_000_000_000, litres: 40.5, accurate: true },
  { vehicle_id: 1, registration: 'AB 1', ms: 1_712_000_000_000, litres: 40.5, accurate: 'true' },
  { a: 0 },
  { a: -0 },
  { a: null },
  { a: Number.NaN },
  { a: 'null' },
  { a: [1, 2] },
  { a: [12] },
  { a: [1, undefined] },
  { a: [1, null] },
  { a: { b: 1 } },
  { a: { b: 1, c: undefined } },
  { a: '', b: 'x' },
  { a: 'x', b: '' },
  { start: { litres: 1, ms: 2, accurate: null }, end: { litres: null, ms: null, accurate: null } },
  { start: { litres: 1, ms: null, accurate: null }, end: { litres: null, ms: 2, accurate: null } },
  { driver_ids: ['7', '8'] },
  { driver_ids: ['78'] },
  { d: new Date(5) },
  { d: '1970-01-01T00:00:00.005Z' },
];

describe('hashRecord', () => {
  it('is equal for two records exactly when their JSON is', () => {
    for (const a of RECORDS)
      for (const b of RECORDS)
        expect(hashRecord(a) === hashRecord(b), `${JSON.stringify(a)} / ${JSON.stringify(b)}`).toBe(
          JSON.stringify(a) === JSON.stringify(b),
        );
  });

  it('is a whole number of at most 53 bits, the same on every call', () => {
    for (const r of RECORDS) {
      const h = hashRecord(r);
      expect(Number.isSafeInteger(h) && h >= 0).toBe(true);
      expect(hashRecord(structuredClone(r))).toBe(h);
    }
  });
});
