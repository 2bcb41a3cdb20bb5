/** Shared set-up for the simulator HTTP tests: a small deterministic fleet, an injected clock. */
import { request } from 'undici';
import { generateFleet } from '../../src/simulator/generate.ts';
import type { Fleet } from '../../src/simulator/model.ts';
import { startSimulator, type SimulatorHandle, type SimulatorOptions } from '../../src/simulator/server.ts';

export const ZONE = 'Australia/Sydney';
/** 40 local days ending 2026-04-20: the clocks go back on 2026-04-05 inside the history. */
export const END_DAY = '2026-04-20';

export function smallFleet(seed = 7): Fleet {
  return generateFleet({ seed, vehicles: 6, days: 40, timezone: ZONE, endDay: END_DAY });
}

export type Who = 'main' | 'sub' | 'none' | 'bad';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: <T = Body>() => T;
}

export type Item = Record<string, unknown>;
/** The union of the envelopes a test reads: list, single object, or error. */
export interface Body {
  data: Item[];
  meta: Record<string, number | boolean>;
  error: { code: number; message: string };
}
export interface One {
  data: Item;
  error: { code: number; message: string };
}

export interface TestSim {
  sim: SimulatorHandle;
  fleet: Fleet;
  now: () => number;
  setNow: (ms: number) => void;
  advance: (ms: number) => void;
  call: (
    method: string,
    path: string,
    opts?: { who?: Who; query?: Record<string, string>; body?: unknown },
  ) => Promise<Answer>;
  get: (path: string, query?: Record<string, string>, who?: Who) => Promise<Answer>;
}

const auth = (who: Who): Record<string, string> => {
  if (who === 'none') return {};
  const pw = who === 'main' ? 'demo-main' : who === 'sub' ? 'demo-sub' : 'wrong';
  return { authorization: `Basic ${Buffer.from(`demo:${pw}`).toString('base64')}` };
};

export async function startTestSim(
  opts: Partial<SimulatorOptions> & { fleet?: Fleet; startAt?: number } = {},
): Promise<TestSim> {
  const fleet = opts.fleet ?? smallFleet();
  let clock = opts.startAt ?? fleet.endMs + 3_600_000;
  const sim = await startSimulator({ now: () => clock, ...opts, fleet });
  const call: TestSim['call'] = async (method, path, o = {}) => {
    const qs = o.query ? `?${new URLSearchParams(o.query).toString()}` : '';
    const res = await request(`${sim.baseUrl}${path}${qs}`, {
      method: method as 'GET',
      headers: {
        accept: 'application/json',
        ...auth(o.who ?? 'main'),
        ...(o.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, text, json: <T>() => JSON.parse(text) as T };
  };
  return {
    sim,
    fleet,
    now: () => clock,
    setNow: (ms) => {
      clock = ms;
    },
    advance: (ms) => {
      clock += ms;
    },
    call,
    get: (path, query, who = 'main') => call('GET', path, { query, who }),
  };
}

export const enc = encodeURIComponent;
