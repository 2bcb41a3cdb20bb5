/**
 * Time on site against the simulator's ground truth: one sync of a small fleet's geofence visits
 * (1–20 April 2026 in Sydney, the clocks going back on 5 April) stores every depot and customer-
 * site stay once, beside the toll passages (still exactly the toll visits), for one request per
 * day window — what the toll visits alone cost. site_visits' dwell and site_activity's figures per
 * site and local day equal those worked out here from the simulator's visits (a stay across
 * midnight counts whole on the day it began; one across the clock change lasts its real elapsed
 * time). A day not synced is blank, a visit with no exit is open, never a zero dwell.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimVisit } from '../../src/simulator/model.ts';
import { planSync } from '../../src/sync/run.ts';
import { addDays, localDate, wallTime } from '../../src/time.ts';
import { ACCOUNT, queryDb, startHarness, type Harness } from '../helpers/synced.ts';

let h: Harness;
const DAYS = 20; // 2026-04-01 … 2026-04-20, Australia/Sydney: 5 April is 25 hours long

beforeAll(async () => {
  h = await startHarness({ fleet: { vehicles: 4, days: DAYS } });
}, 60_000);
afterAll(() => h?.close());

const query = (sql: string, params: (string | number)[] = []) => queryDb(h.db, sql, params);
const zone = () => h.fleet.timezone;
const toll = () => new Set(h.fleet.geofences.filter((g) => g.is_toll).map((g) => g.geofence_id));
const nameOf = (id: string) => h.fleet.geofences.find((g) => g.geofence_id === id)!.name;
/** The site visits (non-toll geofences) entered on local days [from, to]. */
const truthSites = (from: string, to: string): SimVisit[] => {
  const t = toll();
  return h.fleet.truth
    .visits(Date.parse(`${from}T00:00:00Z`) - 86_400_000, Date.parse(`${to}T00:00:00Z`) + 2 * 86_400_000)
    .filter((v) => !t.has(v.geofence_id))
    .filter((v) => localDate(v.enter_ms, zone()) >= from && localDate(v.enter_ms, zone()) <= to);
};
/** A figure rounded to 3 decimals by the report is within half a unit of the last place of the truth. */
const within3 = (got: unknown, want: number) =>
  expect(Math.abs(Number(got) - want)).toBeLessThanOrEqual(0.0005 + 1e-9);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
/** Entered outside Monday–Friday 07:00–18:00 local (the default working hours). */
const outsideHours = (ms: number) => {
  const w = wallTime(ms, zone());
  const dow = new Date(Date.UTC(w.year, w.month - 1, w.day)).getUTCDay();
  const min = w.hour * 60 + w.minute;
  return dow === 0 || dow === 6 || min < 7 * 60 || min >= 18 * 60;
};

describe('time on site', () => {
  it('before a sync reaches a day, site_activity leaves it blank (not synced), never 0', async () => {
    const s = await h.sync({ toDay: addDays(h.lastDay, -3), streams: ['visits'] });
    expect(s.outcome).toBe('ok');
    const rows = await h.report('site_activity', { from: addDays(h.lastDay, -4), to: h.lastDay });
    const late = rows.filter((r) => String(r.day) > addDays(h.lastDay, -3));
    expect(late.length).toBeGreaterThan(0);
    for (const r of late) {
      expect(r.coverage).toBe('not_synced');
      expect(r.visits).toBeNull();
      expect(r.total_dwell_h).toBeNull();
    }
    expect(rows.filter((r) => r.day === addDays(h.lastDay, -4)).every((r) => r.coverage === 'complete')).toBe(
      true,
    );
  });

  it('one unfiltered request per day window stores every site stay once and the toll visits exactly as before', async () => {
    const s = await h.sync({ streams: ['visits'] });
    expect(s.outcome).toBe('ok');
    // the remaining three days: one request each, as the toll visits alone would take
    expect(s.streams.visits!.requests).toBe(3);
    const tolls = await query(
      'SELECT vehicle_id, geofence_id, epoch_ms(enter_time) AS t FROM geofence_visits',
    );
    const truthTolls = h.fleet.truth.tollVisits(h.fleet.startMs, h.fleet.endMs);
    const key = (v: unknown, g: unknown, t: unknown) => `${Number(v)}|${String(g)}|${Number(t)}`;
    expect(new Set(tolls.map((r) => key(r.vehicle_id, r.geofence_id, r.t)))).toEqual(
      new Set(truthTolls.map((v) => key(v.vehicle_id, v.geofence_id, v.enter_ms))),
    );
    expect(tolls.length).toBe(truthTolls.length);
    const passages = await h.report('tolls');
    expect(passages.length).toBe(truthTolls.length);

    const sites = await query(
      'SELECT vehicle_id, geofence_id, epoch_ms(enter_time) AS t, epoch_ms(exit_time) AS x FROM site_geofence_visits',
    );
    const truth = truthSites(h.firstDay, h.lastDay);
    expect(truth.length).toBeGreaterThan(50);
    expect(sites.map((r) => `${key(r.vehicle_id, r.geofence_id, r.t)}|${Number(r.x)}`).sort()).toEqual(
      truth.map((v) => `${key(v.vehicle_id, v.geofence_id, v.enter_ms)}|${v.exit_ms}`).sort(),
    );
  });

  it('site_visits: each stay with its dwell; one across midnight and one across the clock change last their real time', async () => {
    const rows = await h.report('site_visits');
    const truth = truthSites(h.firstDay, h.lastDay);
    expect(rows.length).toBe(truth.length);
    const byKey = new Map(
      rows.map((r) => [`${r.vehicle_id}|${r.geofence_id}|${Date.parse(String(r.enter_time))}`, r]),
    );
    for (const v of truth) {
      const r = byKey.get(`${v.vehicle_id}|${v.geofence_id}|${v.enter_ms}`);
      expect(r, `${v.registration} ${nameOf(v.geofence_id)}`).toBeDefined();
      expect(r!.site).toBe(nameOf(v.geofence_id));
      expect(Date.parse(String(r!.exit_time))).toBe(v.exit_ms);
      expect(r!.dwell_min).toBeCloseTo(Math.round((v.exit_ms - v.enter_ms) / 6000) / 10, 6);
      expect(r!.status).toBe('closed');
      expect(r!.local_date).toBe(localDate(v.enter_ms, zone()));
      expect(r!.outside_hours).toBe(outsideHours(v.enter_ms));
    }
    const overnight = truth.find(
      (v) =>
        localDate(v.enter_ms, zone()) !== localDate(v.exit_ms, zone()) &&
        localDate(v.enter_ms, zone()) === '2026-04-08',
    );
    expect(overnight).toBeDefined();
    // 03:00 AEDT on 5 April 2026 is 02:00 AEST: the stays the clock change falls in
    const change = Date.parse('2026-04-04T16:00:00Z');
    const dsts = truth.filter((v) => v.enter_ms < change && v.exit_ms > change);
    expect(dsts.length, 'stays over the clock change').toBeGreaterThan(0);
    const dst = dsts[0];
    const wall = (ms: number) => {
      const w = wallTime(ms, zone());
      return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
    };
    const r = byKey.get(`${dst!.vehicle_id}|${dst!.geofence_id}|${dst!.enter_ms}`)!;
    // the wall clock says an hour less than the vehicle spent there
    expect((wall(dst!.exit_ms) - wall(dst!.enter_ms)) / 60_000 + 60).toBeCloseTo(Number(r.dwell_min), 1);
    expect(Number(r.dwell_min)).toBeCloseTo((dst!.exit_ms - dst!.enter_ms) / 60_000, 1);
    // the drill-down: one site's visits of one day
    const day = localDate(overnight!.enter_ms, zone());
    const one = await h.report('site_visits', { from: day, to: day, site: overnight!.geofence_id });
    expect(one.map((x) => `${x.vehicle_id}|${Date.parse(String(x.enter_time))}`).sort()).toEqual(
      truthSites(day, day)
        .filter((v) => v.geofence_id === overnight!.geofence_id)
        .map((v) => `${v.vehicle_id}|${v.enter_ms}`)
        .sort(),
    );
  });

  it('site_activity per site and local day of the enter time equals the truth worked out here', async () => {
    const rows = await h.report('site_activity');
    const truth = truthSites(h.firstDay, h.lastDay);
    const sites = [...new Set(truth.map((v) => v.geofence_id))];
    const days: string[] = [];
    for (let d = h.firstDay; d <= h.lastDay; d = addDays(d, 1)) days.push(d);
    expect(rows.length).toBe(sites.length * days.length);
    let checked = 0;
    for (const r of rows) {
      expect(r.coverage).toBe('complete');
      const vs = truth.filter(
        (v) => v.geofence_id === r.geofence_id && localDate(v.enter_ms, zone()) === r.day,
      );
      const dwell = vs.map((v) => (v.exit_ms - v.enter_ms) / 1000);
      expect(r.visits, `${r.site} ${r.day}`).toBe(vs.length);
      expect(r.vehicles).toBe(new Set(vs.map((v) => v.vehicle_id)).size);
      within3(r.total_dwell_h, dwell.reduce((a, b) => a + b, 0) / 3600);
      expect(r.outside_hours_visits).toBe(vs.filter((v) => outsideHours(v.enter_ms)).length);
      expect(r.open_visits).toBe(0);
      if (vs.length) {
        checked++;
        expect(r.median_dwell_min).toBe(Math.round(median(dwell) / 6) / 10);
        within3(r.longest_stay_h, Math.max(...dwell) / 3600);
      } else expect(r.median_dwell_min).toBeNull();
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('a visit with no exit (kept as the API sent it) is open: no dwell, not a zero', async () => {
    const [v] = truthSites('2026-04-10', '2026-04-10');
    await query(
      `INSERT INTO site_geofence_visits (account, vehicle_id, geofence_id, enter_time, exit_time, registration, geofence_name, is_toll)
       VALUES ($1, $2, $3, $4::TIMESTAMPTZ + INTERVAL 1 SECOND, NULL, $5, NULL, false)`,
      [ACCOUNT, v!.vehicle_id, v!.geofence_id, new Date(v!.enter_ms).toISOString(), v!.registration],
    );
    const open = (await h.report('site_visits', { from: '2026-04-10', to: '2026-04-10' })).filter(
      (r) => r.status === 'open',
    );
    expect(open).toHaveLength(1);
    expect(open[0]!.dwell_min).toBeNull();
    expect(open[0]!.exit_time).toBeNull();
    const [day] = (await h.report('site_activity', { from: '2026-04-10', to: '2026-04-10' })).filter(
      (r) => r.geofence_id === v!.geofence_id,
    );
    const closed = truthSites('2026-04-10', '2026-04-10').filter((x) => x.geofence_id === v!.geofence_id);
    expect(day!.visits).toBe(closed.length + 1);
    expect(day!.open_visits).toBe(1);
    within3(day!.total_dwell_h, closed.reduce((a, x) => a + (x.exit_ms - x.enter_ms), 0) / 3_600_000);
  });
});

describe('FLEETSYNC_SITES', () => {
  let s: Harness;
  /** The filters the visits stream asked GET /geofences/visits for, per request of the last sync. */
  let asked: ({ isToll?: boolean } | undefined)[] = [];
  beforeAll(async () => {
    s = await startHarness({ fleet: { vehicles: 3, days: 4 } }); // 17–20 April 2026
    const list = s.client.listVisits.bind(s.client);
    s.client.listVisits = (from, to, filters, o) => {
      asked.push(filters);
      return list(from, to, filters, o);
    };
  }, 60_000);
  afterAll(() => s?.close());

  /** `sync --plan` of the visits over the fleet's history. */
  const planVisits = () =>
    planSync(s.deps, { trigger: 'cli', fromDay: s.firstDay, toDay: s.lastDay, streams: ['visits'] });
  const sitesStored = async () =>
    (
      await queryDb(
        s.db,
        'SELECT geofence_id, epoch_ms(enter_time) AS t FROM site_geofence_visits ORDER BY ALL',
      )
    ).map((r) => `${String(r.geofence_id)}|${Number(r.t)}`);

  it('none: the toll visits alone, filter[is_toll]=true per day as before; `sites` is not recorded', async () => {
    s.deps.sites = { kind: 'none' };
    const plan = await planVisits();
    expect(plan.requestsByStream.visits).toBe(4);
    expect(plan.notes.join('\n')).toMatch(/toll geofences only/);
    asked = [];
    const r = await s.sync({ streams: ['visits'] });
    expect(r.streams.visits!.requests).toBe(4);
    expect(asked).toEqual([{ isToll: true }, { isToll: true }, { isToll: true }, { isToll: true }]);
    expect(await sitesStored()).toEqual([]);
    expect(await queryDb(s.db, "SELECT * FROM ledger WHERE stream = 'sites'")).toEqual([]);
    const tolls = await queryDb(s.db, 'SELECT count(*)::INTEGER AS n FROM geofence_visits');
    expect(tolls[0]!.n).toBe(s.fleet.truth.tollVisits(s.fleet.startMs, s.fleet.endMs).length);
  });

  it('a chosen group ("depot *"): each day pulled once more, unfiltered, keeping those sites only; the tolls unchanged', async () => {
    const before = await queryDb(s.db, 'SELECT * FROM geofence_visits ORDER BY ALL');
    s.deps.sites = { kind: 'chosen', names: ['depot *'] };
    const plan = await planVisits();
    expect(plan.requestsByStream.visits).toBe(4);
    expect(plan.notes.join('\n')).toMatch(/4 day\(s\) pulled again for their sites/);
    asked = [];
    const r = await s.sync({ streams: ['visits'] });
    expect(r.streams.visits!.requests).toBe(4);
    expect(asked).toEqual([{}, {}, {}, {}]);
    const depots = new Set(
      s.fleet.geofences.filter((g) => g.name.startsWith('Depot ')).map((g) => g.geofence_id),
    );
    const truth = s.fleet.truth
      .visits(s.fleet.startMs, s.fleet.endMs)
      .filter((v) => depots.has(v.geofence_id))
      .map((v) => `${v.geofence_id}|${v.enter_ms}`)
      .sort();
    expect(truth.length).toBeGreaterThan(3);
    expect(await sitesStored()).toEqual(truth);
    expect(await queryDb(s.db, 'SELECT * FROM geofence_visits ORDER BY ALL')).toEqual(before);
    // nothing left to pull
    const again = await planVisits();
    expect(again.requestsByStream.visits ?? 0).toBe(0);
  });
});
