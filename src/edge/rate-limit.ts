/** @module A token bucket (docs/API.md, Rate limits): capacity per_minute/2, continuous refill of per_minute/60 a second, clock injected. */

import assert from 'node:assert/strict'
import { entryBatchSizeMax } from '../api/schemas/ledger.js'

const secondMs = 1000
/** Tokens are counted in units: one token is this many, and every ms adds `perMinute` of them. */
const unitsPerToken = 60_000
/** Capacity is half a minute of refill ("double the rate holds for 30 s"). */
const capacityRefillMs = 30_000
/** Refills from empty to full within a minute (30 s; 60 s for the one-token floor of a 1/min limit), so longer gaps count as a minute. */
const elapsedMsMax = 60_000
/** The most tokens one request may owe beyond the one it needs (a batch of 1,000 matches). */
const tokensOwedMax = 1000
/**
 * The most tokens one request takes (an entry batch of 8,190); so the deepest debt is about that many
 * tokens (a batch larger than the capacity, taken from a full bucket).
 */
const tokensPerTakeMax = entryBatchSizeMax
/** Keeps every count exact: elapsedMsMax * perMinuteMax = 6e13 units, far below 2^53. */
const perMinuteMax = 1_000_000_000

/**
 * One budget, refilled lazily from the elapsed time whenever it is asked (O(1), no timers). Counting in
 * integer units rather than fractional tokens keeps the refill exact: a 7/min bucket gains its token after
 * exactly 60/7 s, never a rounding error early or late. Every method takes the time; none reads a clock.
 */
export class TokenBucket {
  readonly #cell: BucketCell
  /** A bucket shared by threads (shared-rate-buckets.ts): each method runs under its workspace's lock. */
  readonly #lock: BucketLock | null

  constructor(perMinute: number, nowMs: number, shared?: { readonly cell: BucketCell; readonly lock: BucketLock }) {
    this.#cell = shared?.cell ?? { perMinute: 0, units: 0, lastMs: 0 }
    this.#lock = shared?.lock ?? null
    if (shared === undefined) fill(this.#cell, perMinute, nowMs)
  }

  get limitPerMinute(): number {
    return this.#cell.perMinute
  }

  /** Whole or half tokens: per_minute/2, but at least 1 (see capacityUnits). */
  get capacity(): number {
    return this.#capacityUnits() / unitsPerToken
  }

  #capacityUnits(): number {
    return capacityUnits(this.#cell.perMinute)
  }

  #refill(nowMs: number): void {
    assert.ok(Number.isSafeInteger(nowMs), `nowMs must be an integer, got ${nowMs}`)
    // A clock stepped backwards (NTP) counts as no time passing, and the bucket measures from the new
    // reading on. Keeping the old, later reading instead would freeze the refill until the clock caught up:
    // a step back of an hour would lock the workspace out for an hour.
    // In debt (a batch took more than the bucket held), filling up may take longer than elapsedMsMax: count that long.
    const fillMs = Math.ceil((this.#capacityUnits() - this.#cell.units) / this.#cell.perMinute)
    const elapsedMs = Math.min(Math.max(0, nowMs - this.#cell.lastMs), Math.max(elapsedMsMax, fillMs))
    this.#cell.units = Math.min(this.#capacityUnits(), this.#cell.units + elapsedMs * this.#cell.perMinute)
    this.#cell.lastMs = nowMs
    assert.ok(Number.isSafeInteger(this.#cell.units) && this.#cell.units >= -tokensPerTakeMax * unitsPerToken)
  }

  /**
   * Takes `tokens` whole tokens. By default only if they are all there (an entry batch: 429 for the whole
   * batch when the budget lacks them), or, for more tokens than the bucket ever holds, once it is full: the
   * excess leaves the bucket in debt (docs/API.md, "Rate limits"), so such a batch can succeed at all and
   * Retry-After has an answer for it. With `mayOwe` (a batch of matches) if one whole token is there: the
   * rest leaves the bucket in debt, repaid by the refill before the next request passes, so a batch larger
   * than the burst capacity can still run and the average rate holds.
   */
  tryTake(nowMs: number, tokens = 1, mayOwe = false): boolean {
    this.#lock?.acquire()
    try {
      assert.ok(Number.isSafeInteger(tokens) && tokens >= 1 && tokens <= tokensPerTakeMax, `tokens must be an integer 1..${tokensPerTakeMax}, got ${tokens}`)
      assert.ok(!mayOwe || tokens <= tokensOwedMax, `a request may owe at most ${tokensOwedMax} tokens, got ${tokens}`)
      this.#refill(nowMs)
      if (this.#cell.units < this.#neededUnits(tokens, mayOwe)) return false
      this.#cell.units -= tokens * unitsPerToken
      return true
    } finally {
      this.#lock?.release()
    }
  }

  /** What must be there for a take of `tokens` to pass: one token (owing), all of them, or a full bucket when they are more. */
  #neededUnits(tokens: number, mayOwe: boolean): number {
    if (mayOwe) return unitsPerToken
    return Math.min(tokens * unitsPerToken, this.#capacityUnits())
  }

  /** Returns tokens a request took but turned out not to owe (a replay found only when it was applied). */
  giveBack(nowMs: number, tokens: number): void {
    this.#lock?.acquire()
    try {
      assert.ok(Number.isSafeInteger(tokens) && tokens >= 0 && tokens <= tokensPerTakeMax, `tokens must be an integer 0..${tokensPerTakeMax}, got ${tokens}`)
      this.#refill(nowMs)
      this.#cell.units = Math.min(this.#capacityUnits(), this.#cell.units + tokens * unitsPerToken)
    } finally {
      this.#lock?.release()
    }
  }

  /** Whole tokens left (X-RateLimit-Remaining); 0 while in debt. */
  remaining(nowMs: number): number {
    this.#lock?.acquire()
    try {
      this.#refill(nowMs)
      return Math.max(0, Math.floor(this.#cell.units / unitsPerToken))
    } finally {
      this.#lock?.release()
    }
  }

  /**
   * Whole seconds, at least 1, until a take of `tokens` passes (Retry-After): after that wait the same
   * request succeeds, unless another took tokens meanwhile. More than the capacity are never there at once,
   * and a take of them passes on a full bucket (tryTake): the answer is then the time to fill it (also for
   * Number.MAX_SAFE_INTEGER: a request whose count is not known yet).
   */
  retryAfterSeconds(nowMs: number, tokens = 1): number {
    this.#lock?.acquire()
    try {
      assert.ok(Number.isSafeInteger(tokens) && tokens >= 1, `tokens must be a positive integer, got ${tokens}`)
      this.#refill(nowMs)
      const missingUnits = Math.max(0, this.#neededUnits(tokens, false) - this.#cell.units)
      const waitMs = Math.ceil(missingUnits / this.#cell.perMinute)
      return Math.max(1, Math.ceil(waitMs / secondMs))
    } finally {
      this.#lock?.release()
    }
  }

  /**
   * A new limit as of `changedAtMs`: time up to then refills at the old rate, time after it at the new one;
   * the tokens held are kept, clamped to the new capacity. So lowering a limit cuts a full bucket down to
   * the new burst, and raising it gives no free burst: the extra room fills at the new rate from the change
   * on, even when the bucket is next asked long after it. A change time before the last reading (a clock
   * stepped back) switches the rate at that reading instead, so no span of time is counted twice.
   */
  setRate(perMinute: number, changedAtMs: number): void {
    this.#lock?.acquire()
    try {
      assertRate(perMinute)
      assert.ok(Number.isSafeInteger(changedAtMs), `changedAtMs must be an integer, got ${changedAtMs}`)
      if (changedAtMs >= this.#cell.lastMs) this.#refill(changedAtMs)
      this.#cell.perMinute = perMinute
      this.#cell.units = Math.min(this.#cell.units, this.#capacityUnits())
    } finally {
      this.#lock?.release()
    }
  }
}

/** Where a bucket keeps its numbers (all safe integers): its own object, or a slot of memory threads share. */
export interface BucketCell {
  perMinute: number
  units: number
  lastMs: number
}

/** Held around each read-and-update of a shared cell, so a take on one thread and one on another never both pass on one token. */
export interface BucketLock {
  acquire(): void
  release(): void
}

/**
 * per_minute/2 tokens, except that a 1/min limit holds 1 token, not 0.5: with half a token it could never
 * serve a request at all, and Retry-After would have no answer.
 */
function capacityUnits(perMinute: number): number {
  return Math.max(unitsPerToken, perMinute * capacityRefillMs)
}

/** A new bucket's numbers: full, as of now. */
export function fill(cell: BucketCell, perMinute: number, nowMs: number): void {
  assertRate(perMinute)
  assert.ok(Number.isSafeInteger(nowMs), `nowMs must be an integer, got ${nowMs}`)
  cell.perMinute = perMinute
  cell.units = capacityUnits(perMinute)
  cell.lastMs = nowMs
}

function assertRate(perMinute: number): void {
  assert.ok(Number.isSafeInteger(perMinute), `perMinute must be an integer, got ${perMinute}`)
  assert.ok(perMinute >= 1 && perMinute <= perMinuteMax, `perMinute must be 1..${perMinuteMax}, got ${perMinute}`)
}
