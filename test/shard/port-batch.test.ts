/** Tests for PortBatch: what one turn of the event loop posts leaves as one postMessage when the turn ends, in order. */
import t from 'tap'
import { PortBatch } from '../../src/shard/port-batch.ts'

/** A target that records every postMessage it is given. */
function recorder(): { target: { postMessage(message: unknown): void }, sent: unknown[] } {
  const sent: unknown[] = []
  return { target: { postMessage: (message: unknown) => { sent.push(message) } }, sent }
}

/** Resolves after the setImmediate queued now has run (setImmediate callbacks run in order). */
function turnEnd(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

t.test('messages of one turn leave as one batch, in the order posted, when the turn ends', async (t) => {
  const { target, sent } = recorder()
  const batch = new PortBatch<string>(target)
  batch.post('a')
  batch.post('b')
  batch.post('c')
  t.same(sent, [], 'nothing is posted within the turn')
  await turnEnd()
  t.same(sent, [['a', 'b', 'c']])
  t.equal(batch.posts, 1)
  t.equal(batch.messages, 3)
})

t.test('each turn gets its own batch; a turn that posts nothing posts nothing', async (t) => {
  const { target, sent } = recorder()
  const batch = new PortBatch<number>(target)
  batch.post(1)
  await turnEnd()
  await turnEnd()
  batch.post(2)
  batch.post(3)
  await turnEnd()
  t.same(sent, [[1], [2, 3]])
  t.equal(batch.posts, 2)
  t.equal(batch.messages, 3)
})

t.test('flush posts what waits now, and the scheduled flush then posts nothing more', async (t) => {
  const { target, sent } = recorder()
  const batch = new PortBatch<string>(target)
  batch.post('close')
  batch.flush()
  t.same(sent, [['close']], 'posted at once, within the turn')
  await turnEnd()
  await turnEnd()
  t.same(sent, [['close']], 'the flush scheduled by post was cancelled: no empty or duplicate post')
  t.equal(batch.posts, 1)
})

t.test('a flush with nothing waiting posts nothing and counts nothing', async (t) => {
  const { target, sent } = recorder()
  const batch = new PortBatch<string>(target)
  batch.flush()
  t.same(sent, [])
  t.equal(batch.posts, 0)
  t.equal(batch.messages, 0)
})

t.test('a post after a flush in the same turn starts a new batch that leaves when the turn ends', async (t) => {
  const { target, sent } = recorder()
  const batch = new PortBatch<string>(target)
  batch.post('a')
  batch.flush()
  batch.post('b')
  t.same(sent, [['a']])
  await turnEnd()
  t.same(sent, [['a'], ['b']])
  t.equal(batch.posts, 2)
  t.equal(batch.messages, 2)
})

t.test('the batch posted is not touched by later posts (the receiver owns it)', async (t) => {
  const { target, sent } = recorder()
  const batch = new PortBatch<string>(target)
  batch.post('a')
  batch.flush()
  batch.post('b')
  batch.flush()
  t.same(sent[0], ['a'], 'the first batch still holds only its own message')
  t.same(sent[1], ['b'])
})
