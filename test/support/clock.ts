/** @module Test support: a manual clock to inject into the service, so time-based rules (rate buckets, idempotency expiry) run without sleeps. */

export interface ManualClock {
  /** The function to pass as `clock` to startTestService. */
  readonly now: () => number
  /** Moves time forward; never backwards, as a real clock would. */
  advance(ms: number): void
}

export function manualClock(startMs: number): ManualClock {
  if (!Number.isSafeInteger(startMs)) throw new Error(`manualClock: start ${startMs} is not an integer of milliseconds`)
  let nowMs = startMs
  return {
    now: () => nowMs,
    advance: (ms) => {
      if (!Number.isSafeInteger(ms) || ms < 0) throw new Error(`manualClock: cannot advance by ${ms} ms`)
      nowMs += ms
    },
  }
}

export const secondMs = 1000
export const minuteMs = 60 * secondMs
export const hourMs = 60 * minuteMs
