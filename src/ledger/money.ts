/** @module Integer money arithmetic in minor units, refusing to leave the safe integer range; amounts that move nothing. */

import { reject, type Rejection } from '../errors.js'

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

/**
 * A line of 0 moves nothing, on an entry or a statement alike: 400 request_invalid naming each such
 * line (docs/API.md, Conventions). A rule of the request's shape, so the route checks it on the parsed body,
 * whatever format it came in (JSON, CSV, the embedded Ledger), before the operation's own rules.
 */
export function zeroAmountRejection(lines: readonly { readonly amount: number }[], what: string): Rejection | null {
  // A loop that allocates only for a zero: this runs for every entry of a batch of thousands.
  let details: { path: string; message: string }[] | null = null
  for (let index = 0; index < lines.length; index++) {
    if (lines[index].amount === 0) (details ??= []).push({ path: `/lines/${index}/amount`, message: 'must not be 0' })
  }
  if (details === null) return null
  return reject('request_invalid', `${what} amounts must be non-zero (line ${details[0].path.split('/')[2]} is 0).`, details)
}
