import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RELEASES, LATEST_RELEASE, type ChangeRecord } from '../../src/simulator/changelog.ts';
import { startTestSim, type TestSim } from '../helpers/simulator-harness.ts';

let t: TestSim;
beforeAll(async () => {
  t = await startTestSim();
});
afterAll(() => t.sim.close());

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await request(`${t.sim.url}${path}`, { headers });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

describe('release notes beside /rest', () => {
  it('serves the JSON Feed of the latest 20 releases, newest first, without auth', async () => {
    const r = await get('/changelog.json');
    expect(r.status).toBe(200);
    const feed = JSON.parse(r.text) as { version: string; items: { id: string; date_published: string }[] };
    expect(feed.version).toBe('https://jsonfeed.org/version/1.1');
    expect(DEFAULT_RELEASES.length).toBeGreaterThan(20);
    expect(feed.items).toHaveLength(20);
    expect(feed.items[0]!.id).toBe(`v${LATEST_RELEASE.version}`);
    const dates = feed.items.map((i) => i.date_published);
    expect([...dates].sort().reverse()).toEqual(dates);
    expect(t.sim.stats().total).toBe(0); // no auth, no bucket
  });

  it('serves one record per bullet with the Versioning §3 fields; kind follows the section', async () => {
    const records = JSON.parse((await get('/changelog/records.json')).text) as ChangeRecord[];
    const latest = records.filter((r) => r.version === LATEST_RELEASE.version);
    expect(latest).toHaveLength(LATEST_RELEASE.notes.length);
    for (const r of records) {
      expect(r.version).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(r.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(r.contract).toEqual(['v1']);
      expect(r.endpoints.every((e) => /^(GET|POST|PUT|PATCH|DELETE) \//.test(e))).toBe(true);
      const bySection = {
        'New Features': 'feature',
        Improvements: 'improvement',
        'Bug Fixes': 'fix',
        'Breaking Changes': 'breaking',
      }[r.section];
      expect(r.kind).toBe(
        /deprecat|left the reference|removed from the reference/i.test(r.text) ? 'deprecation' : bySection,
      );
      expect(r.breaking).toBe(r.section === 'Breaking Changes');
    }
    expect(records.some((r) => r.area === null)).toBe(true); // old releases
    const find = (re: RegExp) => latest.find((r) => re.test(r.text));
    expect(find(/is_toll/)).toMatchObject({ kind: 'feature', area: 'Geofences' });
    expect(find(/delivery\/jobs/)).toMatchObject({ kind: 'fix', endpoints: ['GET /delivery/jobs'] });
    expect(find(/page 2/)).toMatchObject({ kind: 'fix', endpoints: ['GET /rest/trips'] });
    expect(find(/404 instead of 422/)?.endpoints).toHaveLength(3);
    expect(find(/which filter is required/)).toMatchObject({ kind: 'improvement' });
    expect(find(/immobilise/)).toMatchObject({ kind: 'deprecation' });
  });

  it('answers conditional requests with 304 and no body; a new release changes both validators', async () => {
    for (const path of ['/changelog.json', '/changelog/records.json']) {
      const first = await get(path);
      const etag = String(first.headers.etag);
      const modified = String(first.headers['last-modified']);
      expect(etag).toMatch(/^"/);
      expect(Number.isFinite(Date.parse(modified))).toBe(true);
      const inm = await get(path, { 'if-none-match': etag });
      expect([inm.status, inm.text]).toEqual([304, '']);
      expect(inm.headers.etag).toBe(etag);
      const ims = await get(path, { 'if-modified-since': modified });
      expect([ims.status, ims.text]).toEqual([304, '']);
      expect((await get(path, { 'if-none-match': '"other"' })).status).toBe(200);
    }
    const before = await get('/changelog/records.json');
    t.sim.setReleases([
      ...DEFAULT_RELEASES,
      {
        version: '1.26.0901.1',
        date: '2026-09-01',
        notes: [
          { section: 'Breaking Changes', text: 'Trips are paginated by cursor.', endpoints: ['GET /trips'] },
        ],
      },
    ]);
    const etagAgain = await get('/changelog/records.json', { 'if-none-match': String(before.headers.etag) });
    expect(etagAgain.status).toBe(200);
    const since = await get('/changelog/records.json', {
      'if-modified-since': String(before.headers['last-modified']),
    });
    expect(since.status).toBe(200);
    const records = JSON.parse(since.text) as ChangeRecord[];
    expect(records[0]).toMatchObject({
      version: '1.26.0901.1',
      kind: 'breaking',
      breaking: true,
      area: null,
    });
    // The feed still holds 20 releases: the oldest one dropped out.
    const feed = JSON.parse((await get('/changelog.json')).text) as { items: unknown[] };
    expect(feed.items).toHaveLength(20);
  });
});
