/** @module Test support: a manual clock to inject into the service, so time-based rules (rate buckets, idempotency expiry) run without sleeps. */

export interface ManualClock {
  /** The function to pass as `clock` to startTestService. */
  readonly now: () => number
  /** Moves time forward; never backwards, as a real clock would. */
  advance(ms: number): void
}

/** Each manual clock's time in shared memory, by its `now`: the service gives it to the edges on the shards' threads. */
const cells = new WeakMap<() => number, Float64Array>()

/** The clock's time as shared memory, when `now` is a manual clock's (startTestService passes it as ServiceHooks.clockCell). */
export function clockCellOf(now: () => number): Float64Array | undefined {
  return cells.get(now)
}

export function manualClock(startMs: number): ManualClock {
  if (!Number.isSafeInteger(startMs)) throw new Error(`manualClock: start ${startMs} is not an integer of milliseconds`)
  // Kept in a SharedArrayBuffer, so the edges on other threads (EDGE_THREADS=1) read the same time (safe integers: exact).
  const cell = new Float64Array(new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT))
  cell[0] = startMs
  const now = () => cell[0]
  cells.set(now, cell)
  return {
    now,
    advance: (ms) => {
      if (!Number.isSafeInteger(ms) || ms < 0) throw new Error(`manualClock: cannot advance by ${ms} ms`)
      cell[0] += ms
    },
  }
}

export const secondMs = 1000
export const minuteMs = 60 * secondMs
export const hourMs = 60 * minuteMs
