/**
 * src/actor/slice-runner.ts on its own, over a clock the run itself moves: a slice resumes the run until the first
 * yield point at or after sliceMsMax has passed, or until it returns (its value handed back); a run without yield
 * points completes in one slice however long it takes; a slice always resumes at least once.
 */
import t from 'tap'
import { runSlice, sliceClockDefault, type SliceClock } from '../../src/actor/slice-runner.ts'

/** A run of `steps` yield points, each costing `stepMs` on the clock; counts the resumes. */
function timedRun(steps: number, stepMs: number) {
  const state = { nowMs: 0, resumes: 0 }
  function* run(): Generator<undefined, string, undefined> {
    for (let step = 0; step < steps; step++) {
      state.nowMs += stepMs
      state.resumes++
      yield undefined
    }
    state.resumes++
    return 'answer'
  }
  return { state, run: run(), clock: (sliceMsMax: number): SliceClock => ({ sliceMsMax, nowMs: () => state.nowMs }) }
}

t.test('a slice ends at the first yield point once its time is spent', async (t) => {
  const { state, run, clock } = timedRun(10, 2)
  const resumesPerSlice: number[] = []
  let last = runSlice(run, clock(5))
  resumesPerSlice.push(state.resumes)
  for (let slice = 0; slice < 20 && last.done !== true; slice++) {
    last = runSlice(run, clock(5))
    resumesPerSlice.push(state.resumes)
  }
  // 2 ms a step, 5 ms a slice: the third step passes 5 ms (6 ms), so three steps a slice, then the last one and the return.
  t.same(resumesPerSlice, [3, 6, 9, 11])
  t.same(last, { done: true, value: 'answer' })
  t.equal(state.nowMs, 20)
})

t.test('time spent exactly equal to the slice ends it', async (t) => {
  const { state, run, clock } = timedRun(4, 1)
  t.same(runSlice(run, clock(2)), { done: false, value: undefined })
  t.equal(state.resumes, 2, 'stopped at 2 ms elapsed, not after')
})

t.test('a slice of 0 ms resumes once; a run that spends no time completes in one slice', async (t) => {
  const slow = timedRun(3, 1)
  t.equal(runSlice(slow.run, slow.clock(0)).done, false)
  t.equal(slow.state.resumes, 1)
  const instant = timedRun(1_000, 0)
  t.same(runSlice(instant.run, instant.clock(5)), { done: true, value: 'answer' })
  t.equal(instant.state.resumes, 1_001)
})

t.test('a run without yield points completes in one slice however long it takes', async (t) => {
  let nowMs = 0
  function* run(): Generator<undefined, number, undefined> {
    nowMs += 1_000
    return 42
  }
  t.same(runSlice(run(), { sliceMsMax: 3, nowMs: () => nowMs }), { done: true, value: 42 })
})

t.test('the default clock: 3 ms slices on a clock that does not go back', async (t) => {
  t.equal(sliceClockDefault.sliceMsMax, 3)
  const first = sliceClockDefault.nowMs()
  const second = sliceClockDefault.nowMs()
  t.ok(Number.isFinite(first) && second >= first)
})
