/**
 * Seeded randomness for the simulator: mulberry32 (a few lines, fast, good enough for test data)
 * and a hash that derives independent sub-seeds, so that a vehicle's data depends only on the
 * fleet seed, its index and the stream name — never on how many vehicles the fleet has.
 */

/** 32-bit hash of a seed and a list of parts (numbers or short strings), FNV-1a then avalanche. */
export function subSeed(seed: number, ...parts: (number | string)[]): number {
  let h = (0x811c9dc5 ^ (seed >>> 0)) >>> 0;
  const mix = (n: number) => {
    h = Math.imul(h ^ (n & 0xff), 0x01000193) >>> 0;
    h = Math.imul(h ^ ((n >>> 8) & 0xff), 0x01000193) >>> 0;
    h = Math.imul(h ^ ((n >>> 16) & 0xff), 0x01000193) >>> 0;
    h = Math.imul(h ^ ((n >>> 24) & 0xff), 0x01000193) >>> 0;
  };
  mix(seed | 0);
  for (const p of parts) {
    if (typeof p === 'number') mix(p | 0);
    else for (let i = 0; i < p.length; i++) mix(p.charCodeAt(i));
    mix(0x5f5f5f5f);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d) >>> 0;
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [lo, hi] (both inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** Real in [lo, hi). */
  real(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new RangeError('pick from an empty list');
    return item;
  }

  /** A version-4-shaped UUID drawn from this stream (deterministic). */
  uuid(): string {
    const hex = (n: number) =>
      Math.floor(this.next() * 16 ** n)
        .toString(16)
        .padStart(n, '0');
    const variant = (8 + this.int(0, 3)).toString(16);
    return `${hex(8)}-${hex(4)}-4${hex(3)}-${variant}${hex(3)}-${hex(6)}${hex(6)}`;
  }

  /** Upper-case letters / digits of the given length. */
  chars(n: number, alphabet = 'ABCDEFGHJKLMNPRSTUVWXYZ'): string {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(this.next() * alphabet.length)];
    return s;
  }
}

export const rngFor = (seed: number, ...parts: (number | string)[]) => new Rng(subSeed(seed, ...parts));
