/**
 * The simulator's routes are split by who reads them: src/simulator/routes/ serves every endpoint
 * the sync's streams declare (the answers fleetsync stores), src/simulator/spec/ the spec's other
 * endpoints, which only the spec tests call. A route the sync needs must not hide among the spec's.
 */
import { describe, expect, it } from 'vitest';
import { SPEC_ROUTES } from '../../src/simulator/spec/index.ts';
import { ALL_ROUTES, SYNC_ROUTES } from '../../src/simulator/server.ts';
import { BUILTIN_STREAMS, endpointsOf } from '../../src/sync/streams/index.ts';

const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

describe('simulator routes', () => {
  it('serve every endpoint the streams declare from routes/, none from spec/', () => {
    const sync = new Set(SYNC_ROUTES.map(key));
    const spec = new Set(SPEC_ROUTES.map(key));
    const endpoints = endpointsOf(BUILTIN_STREAMS);
    expect(endpoints.length).toBeGreaterThan(5);
    expect(endpoints.filter((e) => !sync.has(e))).toEqual([]);
    expect(endpoints.filter((e) => spec.has(e))).toEqual([]);
  });

  it('mount both folders, each route once', () => {
    expect(ALL_ROUTES.map(key)).toEqual([...SYNC_ROUTES, ...SPEC_ROUTES].map(key));
    expect(new Set(ALL_ROUTES.map(key)).size).toBe(ALL_ROUTES.length);
  });
});
