/**
 * The geofences snapshot's check (keepingTollFacts, src/store/facts.ts): when a geofence becomes
 * or stops being a toll geofence, the stored toll-passage facts are computed again in the same
 * transaction — on a connection that has defined no model yet (the check defines only the
 * signature's macro up front). The hand fixture: 'g-depot' has visits and is not a toll geofence.
 */
import { afterEach, expect, it } from 'vitest';
import { inTransaction } from '../../src/store/db.ts';
import { keepingTollFacts } from '../../src/store/facts.ts';
import { useRawFacts } from '../../src/store/models.ts';
import { ACCOUNT, markFleetStreamsSynced, openFixture, type FixtureDb } from '../helpers/report-fixture.ts';

let f: FixtureDb | null = null;
afterEach(() => {
  f?.close();
  f = null;
});

const TOLL_FACTS = `SELECT vehicle_id, strftime(day, '%Y-%m-%d') AS day, toll_passages FROM daily_facts
  WHERE account = $1 AND stream = 'visits' ORDER BY ALL`;

it('a geofence that became a toll geofence: its passages are counted in the stored facts, as from the raw rows', async () => {
  f = await openFixture();
  await markFleetStreamsSynced(f.con);
  const stored = async () => (await f!.con.runAndReadAll(TOLL_FACTS, [ACCOUNT])).getRowObjectsJS();
  const depotVisits = Number(
    (
      await f.con.runAndReadAll(
        `SELECT count(*)::INTEGER AS n FROM geofence_visits WHERE account = $1 AND geofence_id = 'g-depot'`,
        [ACCOUNT],
      )
    ).getRowObjectsJS()[0]!.n,
  );
  expect(depotVisits).toBeGreaterThan(0);
  const total = (rows: Record<string, unknown>[]) => rows.reduce((n, r) => n + Number(r.toll_passages), 0);
  const before = total(await stored());

  const con = await f.db.connect(); // no macro defined on it yet, as the sync's run connection
  const unchanged = await inTransaction(con, () => keepingTollFacts(con, ACCOUNT, async () => 'same'));
  expect(unchanged).toBe('same');
  expect(total(await stored())).toBe(before);
  await inTransaction(con, () =>
    keepingTollFacts(con, ACCOUNT, async () => {
      await con.run(`UPDATE geofences SET is_toll = true WHERE account = $1 AND geofence_id = 'g-depot'`, [
        ACCOUNT,
      ]);
    }),
  );
  con.closeSync();

  const after = await stored();
  // the depot's passages are toll passages now, in the facts as in the raw computation
  expect(total(after)).toBeGreaterThan(before);
  const raw = await f.db.connect();
  await useRawFacts(raw);
  expect(after).toEqual((await raw.runAndReadAll(TOLL_FACTS, [ACCOUNT])).getRowObjectsJS());
  raw.closeSync();
});
