/**
 * @module How the actor cuts a read in slices by time: it resumes the run's yield points until the
 * slice's time is spent, then gives the event loop back, so a slice lasts about sliceMsMax however
 * fast or slow the machine is (the run's yield points only say where it may stop).
 */

import { performance } from 'node:perf_hooks'

export interface SliceClock {
  /** A slice ends at the first yield point after this many milliseconds. */
  readonly sliceMsMax: number
  readonly nowMs: () => number
}

/** About 3 ms: reads beside a proposal run wait at most a slice (the target is 10 ms, issue 15). */
export const sliceClockDefault: SliceClock = { sliceMsMax: 3, nowMs: () => performance.now() }

/** Resumes the run until it returns or the slice's time is spent at a yield point; what the last resume gave. */
export function runSlice<T>(run: Generator<undefined, T, undefined>, clock: SliceClock): IteratorResult<undefined, T> {
  const startMs = clock.nowMs()
  for (;;) {
    const step = run.next()
    if (step.done === true || clock.nowMs() - startMs >= clock.sliceMsMax) return step
  }
}
