/** @module A small seeded PRNG (mulberry32), so a seed names one run exactly: the simulation's, and the crash loop's and soak's clients (test/support/crash). */

import assert from 'node:assert/strict'

/** mulberry32: 32 bits of state, fast, good enough to drive a workload (not for cryptography). */
export class Prng {
  #state: number

  constructor(seed: number) {
    assert.ok(Number.isSafeInteger(seed), `seed must be an integer, got ${seed}`)
    this.#state = seed >>> 0
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0
    let value = this.#state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    assert.ok(min <= max)
    return min + Math.floor(this.next() * (max - min + 1))
  }

  chance(probability: number): boolean {
    return this.next() < probability
  }

  pick<T>(items: readonly T[]): T {
    assert.ok(items.length > 0, 'pick from an empty list')
    return items[Math.floor(this.next() * items.length)]
  }

  /** Up to count distinct items, in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items]
    const chosen: T[] = []
    while (chosen.length < count && pool.length > 0) chosen.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0])
    return chosen
  }

  /** One of the keys, drawn with the given weights. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][]
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0)
    let roll = this.next() * total
    for (const [key, weight] of entries) {
      roll -= weight
      if (roll < 0) return key
    }
    return entries[entries.length - 1][0]
  }
}
