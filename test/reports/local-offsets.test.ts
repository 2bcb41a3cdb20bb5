/**
 * Issue 16: the big exports (trips, tolls) format local times from the zone's offset per UTC
 * quarter hour (zone_offsets, iso_local_at) instead of converting each instant with ICU. That
 * holds only if every offset change falls on a quarter-hour boundary: checked here against the
 * per-instant conversion (iso_local) for the zones whose rules are least round — half-hour DST
 * (Lord Howe), :45 offsets (Kathmandu, Chatham), a :30 zone with DST (St John's), southern and
 * northern DST, DST changing at local midnight (Santiago), and a zone that dropped DST — every 9 min 1 s over 2020–2027, each instant's
 * text compared, and beyond the table's end the fallback (offset_in) the exports use.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { loadSql } from '../../src/store/queries.ts';

const ZONES = [
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'America/St_Johns',
  'Australia/Sydney',
  'Europe/London',
  'America/Sao_Paulo',
  'America/Santiago',
  'UTC',
];

describe('local time from the quarter-hour offset table', () => {
  it.each(ZONES.map((z) => [z]))(
    '%s: the same text as the per-instant conversion, 2020–2027',
    async (zone) => {
      const inst = await DuckDBInstance.create(':memory:');
      const con = await inst.connect();
      try {
        await con.run(loadSql('reports/macros/iso_local'));
        const r = await con.runAndReadAll(
          `WITH t AS (
           SELECT ts FROM range(TIMESTAMPTZ '2020-01-01 00:00:07+00', TIMESTAMPTZ '2028-01-01 00:00:00+00',
                                INTERVAL 541 SECOND) AS r(ts)),
         o AS (SELECT * FROM zone_offsets($zone, TIMESTAMPTZ '2020-01-01 00:00:00+00', TIMESTAMPTZ '2027-01-01 00:00:00+00'))
         SELECT count(*) AS n,
                count(*) FILTER (WHERE o.off IS NULL) AS beyond,
                count(*) FILTER (WHERE iso_local_at(t.ts, coalesce(o.off, offset_in(t.ts, $zone))) <> iso_local(t.ts, $zone)) AS differ,
                count(DISTINCT coalesce(o.off, offset_in(t.ts, $zone))) AS offsets,
                any_value(iso_local(t.ts, $zone) || ' vs ' || iso_local_at(t.ts, coalesce(o.off, offset_in(t.ts, $zone))))
                  FILTER (WHERE iso_local_at(t.ts, coalesce(o.off, offset_in(t.ts, $zone))) <> iso_local(t.ts, $zone)) AS example
         FROM t LEFT JOIN o ON o.q = epoch_us(t.ts) // 900000000`,
          { zone },
        );
        const row = r.getRowObjectsJS()[0]!;
        expect(Number(row.n)).toBeGreaterThan(460_000);
        expect(Number(row.beyond)).toBeGreaterThan(50_000); // 2027 is past the table: the fallback
        expect({ differ: Number(row.differ), example: row.example }).toEqual({ differ: 0, example: null });
        // one offset all along: UTC, Kathmandu, and São Paulo (no DST since 2019)
        if (!['UTC', 'Asia/Kathmandu', 'America/Sao_Paulo'].includes(zone))
          expect(Number(row.offsets)).toBeGreaterThan(1);
      } finally {
        con.closeSync();
        inst.closeSync();
      }
    },
  );
});
