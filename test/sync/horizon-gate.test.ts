/**
 * The executor's wait for the vehicles' data horizons (executor.ts horizonGate, criticalBucket, horizonOrder):
 * a unit goes only once the odometer of the vehicles it reads is through and the horizons were
 * loaded after that; a fleet unit once the whole fleet's is; and the odometer of the vehicles the
 * slowest bucket waits on is asked first. Hand-worked cases, no database.
 */
import { describe, expect, it } from 'vitest';
import { criticalBucket, horizonGate, horizonOrder, horizonVehicles } from '../../src/sync/executor.ts';
import type { Unit } from '../../src/sync/unit.ts';

const unit = (stream: string, scope: string, bucket: Unit['bucket'] = 'default', estRequests = 1): Unit =>
  ({ stream, scope, bucket, estRequests, ledgerStream: stream, window: { startMs: 0, endMs: 1 } }) as Unit;
const PER_VEHICLE = new Set(['ev_energy', 'fuel']);
const tick = () => new Promise((r) => setImmediate(r));

describe('horizonGate', () => {
  it('frees a unit once its own vehicles’ odometer is through and a load began after that; a fleet unit after the whole fleet’s', async () => {
    const odometer = [
      unit('odometer', '1'),
      unit('odometer', '1'),
      unit('odometer', '2'),
      unit('odometer', '3'),
    ];
    const loads: { done: () => void }[] = [];
    const gate = horizonGate(odometer, () => new Promise<void>((done) => loads.push({ done })));
    const went: string[] = [];
    void gate.wait(['1', '2']).then(() => went.push('1,2'));
    void gate.wait(['3']).then(() => went.push('3'));
    void gate.wait(null).then(() => went.push('fleet'));
    void gate.wait(['9']).then(() => went.push('9')); // no odometer unit this run: at once
    await tick();
    expect(went).toEqual(['9']);
    gate.through('1');
    gate.through('2');
    await tick();
    expect(loads).toHaveLength(0); // vehicle 1 has a window left
    gate.through('1');
    await tick();
    expect(loads).toHaveLength(1);
    expect(went).toEqual(['9']); // not before the load is in
    gate.through('3'); // while the load runs: freed by the next one, which waits for this
    await tick();
    expect(loads).toHaveLength(1);
    loads[0]!.done();
    await tick();
    expect(went).toEqual(['9', '1,2']);
    expect(loads).toHaveLength(2);
    loads[1]!.done();
    await tick();
    expect(went).toEqual(['9', '1,2', '3', 'fleet']);
    // asked after its odometer is through: it still waits for a load begun after it asked
    void gate.wait(['2']).then(() => went.push('2 later'));
    await tick();
    expect(loads).toHaveLength(3);
    expect(went).toHaveLength(4);
    loads[2]!.done();
    await tick();
    expect(went.at(-1)).toBe('2 later');
  });

  it('with no odometer unit at all, nothing waits and nothing is loaded', async () => {
    let loads = 0;
    const gate = horizonGate([], () => Promise.resolve(void loads++));
    const went: string[] = [];
    await gate.wait(null).then(() => went.push('fleet'));
    await gate.wait(['4']).then(() => went.push('4'));
    expect(went).toEqual(['fleet', '4']);
    expect(loads).toBe(0);
  });
});

describe('criticalBucket and horizonOrder', () => {
  const odometer = ['1', '2', '3', '4'].map((v) => unit('odometer', v));
  it('names the slowest bucket when it needs more than one window and the odometer does not draw on it', () => {
    // 25 EV requests at 10 a window: 2 windows after the first (120 s); 30 default requests: 0
    const others = [
      ...Array.from({ length: 25 }, () => unit('ev_energy', '3,4', 'ev_consumption')),
      ...Array.from({ length: 30 }, () => unit('fuel', '1')),
      unit('trips', '*'),
    ];
    expect(criticalBucket(odometer, others, { windowMs: 60_000 })).toBe('ev_consumption');
    // 10 EV requests fit one window: nothing is critical
    expect(criticalBucket(odometer, others.slice(15), { windowMs: 60_000 })).toBeNull();
    // the default bucket slowest (3,500 requests at 1,000: 180 s): the odometer draws on it itself
    const many = Array.from({ length: 3_500 }, () => unit('fuel', '1'));
    expect(criticalBucket(odometer, [...others, ...many], { windowMs: 60_000 })).toBeNull();
  });

  it('asks first the odometer of the vehicles the early units wait on', () => {
    expect(horizonOrder(odometer, new Set(['4', '2'])).map((u) => u.scope)).toEqual(['2', '4', '1', '3']);
  });

  it('reads a scope as vehicles only for a per-vehicle stream, and only when it names vehicles', () => {
    expect(horizonVehicles(unit('ev_energy', '3,4'), PER_VEHICLE)).toEqual(['3', '4']);
    expect(horizonVehicles(unit('fuel', 'probe'), PER_VEHICLE)).toBeNull();
    expect(horizonVehicles(unit('trips', '*'), PER_VEHICLE)).toBeNull();
  });
});
