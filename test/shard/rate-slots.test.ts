/**
 * The registry's rate slots (src/shard/rate-slots.ts): a slot per workspace in the order they come, the same one
 * asked again, a new page exactly when a slot is past the last page; and the pages, handed to shared buckets with
 * the slots, give each workspace its own budget.
 */
import t from 'tap'
import { SharedRateBuckets } from '../../src/edge/shared-rate-buckets.ts'
import { limitsDefault, type WorkspaceRecord } from '../../src/ledger/system.ts'
import { RateSlots, rateSlotsPerPage } from '../../src/shard/rate-slots.ts'

const nowMs = Date.parse('2026-11-27T12:00:00.000Z')

function workspace(id: string, writesPerMinute: number): WorkspaceRecord {
  return { id, limits: { ...limitsDefault, writes_per_minute: writesPerMinute }, limitsChangedAtMs: nowMs } as WorkspaceRecord
}

t.test('slots in order, stable, a page per rateSlotsPerPage workspaces', async (t) => {
  const slots = new RateSlots(['a', 'b'])
  t.equal(slots.state.pages.length, 1, 'the first workspace opened the first page')
  t.same(slots.state.slots, [['a', 0], ['b', 1]])
  t.same(slots.assign('a'), { slot: 0, page: null }, 'a workspace keeps its slot')
  for (let n = 2; n < rateSlotsPerPage; n++) t.equal(slots.assign(`w${n}`).page, null, `slot ${n} is in the first page`)
  const next = slots.assign('next')
  t.equal(next.slot, rateSlotsPerPage)
  t.ok(next.page instanceof SharedArrayBuffer, 'the slot past the first page opens the second')
  t.equal(slots.state.pages.length, 2)
  t.equal(slots.assign('after').page, null)
  t.equal(new RateSlots([]).state.pages.length, 0, 'no workspace, no page')
})

t.test('buckets over the pages: each workspace its own budget, in whichever page', async (t) => {
  const slots = new RateSlots(Array.from({ length: rateSlotsPerPage }, (_, n) => `w${n}`))
  const last = slots.assign('last')
  const byId = new Map(slots.state.slots)
  // One thread's view made before the second page existed, given it later (as the registry's command brings it).
  const early = new SharedRateBuckets(slots.state.pages.slice(0, 1), (id) => byId.get(id) ?? -1)
  early.addPage(last.page!)
  const late = new SharedRateBuckets(slots.state.pages, (id) => byId.get(id) ?? -1)
  for (const id of ['w0', 'last']) {
    const here = early.of(workspace(id, 6), nowMs).writes
    const there = late.of(workspace(id, 6), nowMs).writes
    let taken = 0
    for (let n = 0; n < 10; n++) if ((n % 2 === 0 ? here : there).tryTake(nowMs)) taken++
    t.equal(taken, 3, `${id}: a burst of 3 over both views`)
  }
  t.equal(late.of(workspace('w1', 6), nowMs).writes.remaining(nowMs), 3, 'another workspace\'s budget is untouched')
  t.throws(() => late.of(workspace('unknown', 6), nowMs), /no rate slot/, 'a workspace without a slot is a programmer error')
})

t.test('the keys\' send-buffer slots: the same assignment over pages of their own', async (t) => {
  const made: SharedArrayBuffer[] = []
  const keys = new RateSlots(['k1'], () => {
    made.push(new SharedArrayBuffer(rateSlotsPerPage * 8))
    return made.at(-1)!
  })
  t.same(keys.state.slots, [['k1', 0]])
  t.same(keys.state.pages, made, 'the pages are the ones the given allocation made')
  for (let n = 1; n < rateSlotsPerPage; n++) keys.assign(`k${n + 1}`)
  t.equal(keys.assign('past').page, made[1], 'the slot past the first page opens a second, made the same way')
})
