/**
 * src/ledger/proposal-work.ts on its own: spend says a yield is due once the steps since the last one reach the
 * bound (not before), then counts again from zero, carrying nothing over; the total counts every step; searched
 * adds up candidates and searches, counts the spent ones, keeps the largest; a fresh meter has done nothing.
 */
import t from 'tap'
import { WorkMeter } from '../../src/ledger/proposal-work.ts'

t.test('a fresh meter has done nothing', async (t) => {
  t.same(new WorkMeter(10).work, { stepsTotal: 0, candidates: 0, searches: 0, searchesSpent: 0, searchCandidatesMax: 0 })
})

t.test('spend: a yield is due when the steps since the last one reach the bound', async (t) => {
  const meter = new WorkMeter(10)
  t.equal(meter.spend(9), false, '9 of 10')
  t.equal(meter.spend(1), true, 'exactly 10: due')
  t.equal(meter.spend(9), false, 'the count started again at 0')
  t.equal(meter.spend(0), false, 'no step, nothing due')
  t.equal(meter.spend(25), true, 'past the bound at once: due')
  t.equal(meter.spend(9), false, 'what went past the bound is not carried over')
  t.equal(meter.spend(1), true)
  t.equal(meter.work.stepsTotal, 54, 'the total counts every step, across yields')
})

t.test('spend with a bound of 1: every step is a yield point; with 0, every call', async (t) => {
  const one = new WorkMeter(1)
  t.same([one.spend(1), one.spend(1), one.spend(3)], [true, true, true])
  const zero = new WorkMeter(0)
  t.same([zero.spend(0), zero.spend(5)], [true, true])
})

t.test('spend in many small steps: one yield every bound steps', async (t) => {
  const meter = new WorkMeter(64)
  let yields = 0
  for (let step = 0; step < 64 * 50; step++) if (meter.spend(1)) yields++
  t.equal(yields, 50)
  t.equal(meter.work.stepsTotal, 3200)
})

t.test('searched: candidates summed, searches counted, spent ones apart, the largest kept', async (t) => {
  const meter = new WorkMeter(1000)
  meter.searched(12, false)
  meter.searched(40, true)
  meter.searched(0, false)
  meter.searched(7, true)
  t.same(meter.work, { stepsTotal: 0, candidates: 59, searches: 4, searchesSpent: 2, searchCandidatesMax: 40 })
  meter.spend(5)
  t.equal(meter.work.stepsTotal, 5, 'steps and searches are counted apart')
  t.equal(meter.work.candidates, 59)
})

t.test('work is a copy: what the caller holds does not move with the meter', async (t) => {
  const meter = new WorkMeter(10)
  const before = meter.work
  meter.spend(3)
  meter.searched(2, true)
  t.same(before, { stepsTotal: 0, candidates: 0, searches: 0, searchesSpent: 0, searchCandidatesMax: 0 })
  t.same(meter.work, { stepsTotal: 3, candidates: 2, searches: 1, searchesSpent: 1, searchCandidatesMax: 2 })
})
