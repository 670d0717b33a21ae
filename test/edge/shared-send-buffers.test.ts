/**
 * The send-buffer bounds over several threads (src/edge/shared-send-buffers.ts): two threads' counts on the same
 * shared memory, sessions over fake sockets, a ring from one thread to the other delivered as the main thread
 * would (a later turn). The counts are the process's, and past a bound the socket holding the most is closed,
 * whichever thread serves it.
 */
import t from 'tap'
import { SharedSendBuffers } from '../../src/edge/shared-send-buffers.ts'
import { fakeSession } from '../support/fake-stream-session.ts'

const mebibyte = 1024 * 1024
const threads = 2

/** Two threads' buffers on one process count and one page of key slots; rings counted and delivered a turn later. */
function twoThreads(keyBytesMax: number, processBytesMax: number, keys: readonly string[]) {
  const process = SharedSendBuffers.allocateProcess(threads)
  const page = SharedSendBuffers.allocateKeys(8, threads)
  const slotOfKey = (keyId: string) => keys.indexOf(keyId)
  const rings: { thread: number; keyId: string | null; hops: number }[] = []
  const all: SharedSendBuffers[] = []
  for (let thread = 0; thread < threads; thread++) {
    all.push(new SharedSendBuffers({
      keyBytesMax, processBytesMax, thread, threads, process, keyPages: [page], slotOfKey,
      ring: (to, keyId, hops) => {
        rings.push({ thread: to, keyId, hops })
        setImmediate(() => all[to].rung(keyId, hops))
      },
    }))
  }
  return { threads: all, rings }
}

const turn = () => new Promise((resolve) => setImmediate(resolve))
/** Rings delivered: a few turns, each ring one. */
const delivered = async () => { for (let index = 0; index < 4 * threads + 2; index++) await turn() }

t.test('one key over its bound over two threads: the socket holding the most closes, on the other thread', async (t) => {
  const { threads: [a, b], rings } = twoThreads(4 * mebibyte, 64 * mebibyte, ['k1', 'k2'])
  const slow = fakeSession(a, 'k1', 3 * mebibyte)
  a.measured(slow)
  const other = fakeSession(a, 'k2', 3 * mebibyte)
  a.measured(other)
  const fast = fakeSession(b, 'k1', 0)
  b.measured(fast)
  t.equal(b.totalBytes, 6 * mebibyte, 'every thread reads the process count')
  fast.setBytes(2 * mebibyte)
  b.measured(fast)
  await delivered()
  t.same(rings, [{ thread: 0, keyId: 'k1', hops: 1 }], 'the thread that saw the key over its bound rang the one holding its largest socket')
  t.ok(slow.aborted(), 'the key\'s socket with the most unread bytes closed, on the other thread')
  t.notOk(fast.aborted(), 'the one that wrote last but holds less stays')
  t.notOk(other.aborted(), 'another key\'s socket stays')
  t.equal(a.closedCount + b.closedCount, 1)
  t.equal(a.totalBytes, 5 * mebibyte, 'the closed socket\'s bytes no longer count')
})

t.test('the process over its bound over two threads: its slowest socket closes; a drained one is read again first', async (t) => {
  const { threads: [a, b], rings } = twoThreads(4 * mebibyte, 6 * mebibyte, ['a', 'b', 'c'])
  const drained = fakeSession(b, 'a', 3 * mebibyte)
  b.measured(drained)
  const heavy = fakeSession(b, 'b', 1 * mebibyte)
  b.measured(heavy)
  // Thread b's sockets moved without writing since: its figures are stale, made exact when it is rung.
  drained.setBytes(0)
  heavy.setBytes(4 * mebibyte)
  const last = fakeSession(a, 'c', 2.5 * mebibyte)
  a.measured(last)
  await delivered()
  t.same(rings, [{ thread: 1, keyId: null, hops: 1 }], 'the process count over its bound: the thread with the largest figure rung')
  t.notOk(drained.aborted(), 'a socket that drained since it last wrote is not taken for slow')
  t.notOk(last.aborted(), 'the socket that wrote last holds less')
  t.ok(heavy.aborted(), 'the socket holding the most closed, on the other thread')
  t.equal(a.totalBytes, 2.5 * mebibyte, 'what is left counted')
})

t.test('a ring to a thread whose figure was stale comes back, and the bound is kept within a bounded number of rings', async (t) => {
  const { threads: [a, b], rings } = twoThreads(4 * mebibyte, 64 * mebibyte, ['k'])
  const once = fakeSession(b, 'k', 3 * mebibyte)
  b.measured(once)
  once.setBytes(2 * mebibyte)
  const large = fakeSession(a, 'k', 2.5 * mebibyte)
  a.measured(large)
  const small = fakeSession(a, 'k', 0.5 * mebibyte)
  a.measured(small)
  await delivered()
  t.ok(rings.every((ring) => ring.hops <= 2 * threads), `no ring past ${2 * threads} hops`)
  t.same(rings.map((ring) => ring.thread), [1, 1, 0, 0], 'thread b rung (its stale 3 MiB), which found its socket at 2 MiB and rang thread a back')
  t.ok(large.aborted(), 'the largest socket, once every figure was exact, closed')
  t.notOk(once.aborted(), 'the other thread\'s socket stays')
  t.notOk(small.aborted(), 'the smaller one stays')
  t.equal(a.totalBytes, 2.5 * mebibyte, `${a.totalBytes} bytes counted`)
  b.removed(once)
  a.removed(small)
  t.equal(a.totalBytes, 0, 'closed sockets count nothing')
})
