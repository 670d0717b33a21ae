/**
 * SeqWaiters (src/log/seq-waiters.ts), the replies CommandLog holds until their record is durable: against a
 * Map model, any interleaving of adds and takes over seqs that stay within the capacity gives each seq its
 * own callbacks, in the order they were added, once; and a taken slot is empty (it keeps nothing alive).
 */
import fc from 'fast-check'
import t from 'tap'
import { SeqWaiters, type DurableCallback } from '../../src/log/seq-waiters.ts'

const flatten = (waiting: DurableCallback | DurableCallback[] | undefined): DurableCallback[] => waiting === undefined ? [] : typeof waiting === 'function' ? [waiting] : waiting

t.test('callbacks come back by seq, in the order they were added, once', async (t) => {
  const waiters = new SeqWaiters(4)
  const calls: string[] = []
  const callback = (name: string): DurableCallback => () => { calls.push(name) }
  waiters.add(7, callback('7a'))
  waiters.add(8, callback('8'))
  waiters.add(7, callback('7b'))
  waiters.add(7, callback('7c'))
  t.equal(waiters.size, 2, 'two seqs wait')
  for (const each of flatten(waiters.take(7))) each(null)
  t.same(calls, ['7a', '7b', '7c'])
  t.equal(waiters.take(7), undefined, 'taken once')
  t.equal(waiters.size, 1)
  // 11 shares 7's slot (capacity 4): free again once 7 was taken.
  waiters.add(11, callback('11'))
  t.equal(flatten(waiters.take(8)).length, 1)
  t.equal(flatten(waiters.take(11)).length, 1)
  t.equal(waiters.size, 0)
})

t.test('any interleaving within the capacity matches a Map keyed by seq', async (t) => {
  const capacity = 16
  // A step adds a callback for a seq at most `capacity - 1` past the oldest seq still waiting, or takes the oldest.
  const steps = fc.array(fc.oneof(fc.record({ add: fc.nat(capacity - 1) }), fc.constant({ takeOldest: true })), { maxLength: 300 })
  fc.assert(fc.property(steps, (script) => {
    const waiters = new SeqWaiters(capacity)
    const model = new Map<number, DurableCallback[]>()
    let oldest = 1
    let made = 0
    for (const step of script) {
      if ('add' in step) {
        const seq = oldest + step.add
        const callback: DurableCallback = () => {}
        Object.defineProperty(callback, 'name', { value: `cb${made++}` })
        waiters.add(seq, callback)
        model.set(seq, [...(model.get(seq) ?? []), callback])
      } else {
        t.same(flatten(waiters.take(oldest)).map((each) => each.name), (model.get(oldest) ?? []).map((each) => each.name))
        model.delete(oldest)
        oldest++
      }
      if (waiters.size !== model.size) return false
    }
    for (let seq = oldest; seq < oldest + capacity; seq++) {
      if (flatten(waiters.take(seq)).length !== (model.get(seq) ?? []).length) return false
    }
    return waiters.size === 0
  }), { numRuns: 300 })
})
