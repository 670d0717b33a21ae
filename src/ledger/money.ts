/** @module Integer money arithmetic in minor units, refusing to leave the safe integer range. */

/** Sum of safe integers, or null when any partial sum leaves ±(2^53−1). */
export function sumSafe(amounts: Iterable<number>): number | null {
  let total = 0
  for (const amount of amounts) {
    total += amount
    if (!Number.isSafeInteger(total)) return null
  }
  return total
}

export function addSafe(a: number, b: number): number | null {
  const total = a + b
  return Number.isSafeInteger(total) ? total : null
}
