/**
 * The executor's wait for the vehicles' data horizons (executor.ts horizonGate, horizonOrder):
 * a unit goes only once the odometer of the vehicles it reads is through and the horizons were
 * loaded after that; a fleet unit once the whole fleet's is; and the odometer of the vehicles the
 * slowest bucket waits on is asked first. Hand-worked cases, no database.
 */
import { describe, expect, it } from 'vitest';
import { horizonGate, horizonOrder, horizonVehicles } from '../../src/sync/executor.ts';
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

describe('horizonOrder', () => {
  it('asks first the odometer of the vehicles whose units wait on the slowest bucket', () => {
    const odometer = ['1', '2', '3', '4'].map((v) => unit('odometer', v));
    // 25 EV requests at 10 a window: 2 windows; 30 default requests at 1,000: none
    const others = [
      ...Array.from({ length: 25 }, () => unit('ev_energy', '3,4', 'ev_consumption')),
      ...Array.from({ length: 30 }, () => unit('fuel', '1')),
      unit('trips', '*'),
    ];
    const order = horizonOrder(odometer, others, PER_VEHICLE, { windowMs: 60_000 });
    expect(order.map((u) => u.scope)).toEqual(['3', '4', '1', '2']);
  });

  it('reads a scope as vehicles only for a per-vehicle stream, and only when it names vehicles', () => {
    expect(horizonVehicles(unit('ev_energy', '3,4'), PER_VEHICLE)).toEqual(['3', '4']);
    expect(horizonVehicles(unit('fuel', 'probe'), PER_VEHICLE)).toBeNull();
    expect(horizonVehicles(unit('trips', '*'), PER_VEHICLE)).toBeNull();
  });
});
