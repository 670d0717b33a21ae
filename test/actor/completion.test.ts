/**
 * A completion (src/actor/completion.ts): its answer leaves only through the log's afterDurable for the barrier
 * seq it was computed at, with the log's failure when there is one; fields added to an accepted answer drop the
 * text the command wrote (it no longer matches the body), a rejection is left as it is.
 */
import t from 'tap'
import { Submitted, type DurableWaiter } from '../../src/actor/completion.ts'
import { reject } from '../../src/errors.ts'
import { accept, answerText, type Accepted } from '../../src/ledger/outcome.ts'

/** A log stand-in that holds each waiter until the test releases the seqs up to one. */
function heldLog(): DurableWaiter & { waits: number[]; release(seq: number, error: Error | null): void } {
  let held: { seq: number; callback: (error: Error | null) => void }[] = []
  return {
    waits: [],
    afterDurable(seq, callback) { this.waits.push(seq); held.push({ seq, callback }) },
    release(seq, error) {
      const due = held.filter((waiter) => waiter.seq <= seq)
      held = held.filter((waiter) => waiter.seq > seq)
      for (const waiter of due) waiter.callback(error)
    },
  }
}

t.test('whenDurable waits for the barrier seq, then calls back with no error', async (t) => {
  const log = heldLog()
  const submitted = new Submitted(accept(201, { id: 'ent_1' }), 42, log)
  const calls: (Error | null)[] = []
  submitted.whenDurable((error) => calls.push(error))
  t.same(log.waits, [42], 'asked for seq 42')
  log.release(41, null)
  t.same(calls, [], 'not before 42 is durable')
  log.release(42, null)
  t.same(calls, [null])
})

t.test('the log\'s failure reaches the caller', async (t) => {
  const log = heldLog()
  const failure = new Error('fsync failed')
  const calls: (Error | null)[] = []
  new Submitted(accept(200, {}), 7, log).whenDurable((error) => calls.push(error))
  log.release(7, failure)
  t.equal(calls[0], failure)
})

t.test('withFields adds to an accepted body, drops the written text, keeps status, barrier and log', async (t) => {
  const log = heldLog()
  const outcome: Accepted = { ...accept(201, { id: 'key_1', scopes: ['read'] }), json: '{"id":"key_1","scopes":["read"]}' }
  const submitted = new Submitted(outcome, 9, log)
  const added = submitted.withFields({ secret: 'tu_secret' })
  t.not(added, submitted, 'a new completion')
  t.same(added.outcome, { ok: true, status: 201, body: { id: 'key_1', scopes: ['read'], secret: 'tu_secret' }, json: undefined })
  t.equal(answerText(added.outcome as Accepted), '{"id":"key_1","scopes":["read"],"secret":"tu_secret"}', 'the answer is the body with the field')
  t.same((submitted.outcome as Accepted).body, { id: 'key_1', scopes: ['read'] }, 'the original untouched')
  t.equal(added.barrierSeq, 9)
  added.whenDurable(() => undefined)
  t.same(log.waits, [9], 'waits on the same log for the same seq')
})

t.test('withFields on a rejection is the same completion: no field joins an error', async (t) => {
  const submitted = new Submitted(reject('scope_missing', 'No.'), 3, heldLog())
  t.equal(submitted.withFields({ secret: 'x' }), submitted)
})
