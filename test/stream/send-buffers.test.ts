/** The unread-bytes bounds (src/stream/send-buffers.ts) on sessions over fake sockets: per key, over the process, the slowest closed first. */
import t from 'tap'
import { SendBuffers } from '../../src/stream/send-buffers.ts'
import { fakeSession } from '../support/fake-stream-session.ts'

const mebibyte = 1024 * 1024

t.test('one key over its bound: its slowest socket is closed, other keys untouched', async (t) => {
  const buffers = new SendBuffers(4 * mebibyte, 64 * mebibyte)
  const other = fakeSession(buffers, 'k2', 3 * mebibyte)
  buffers.measured(other)
  const slow = fakeSession(buffers, 'k1', 3 * mebibyte)
  buffers.measured(slow)
  const fast = fakeSession(buffers, 'k1', 0)
  buffers.measured(fast)
  t.equal(buffers.totalBytes, 6 * mebibyte, 'counted')
  fast.setBytes(2 * mebibyte)
  buffers.measured(fast)
  t.ok(slow.aborted(), 'the key\'s socket with the most unread bytes closed')
  t.notOk(fast.aborted(), 'the one that wrote last but holds less stays')
  t.notOk(other.aborted(), 'another key\'s socket stays')
  t.equal(buffers.totalBytes, 5 * mebibyte, 'the closed socket\'s bytes no longer count')
  t.equal(buffers.closedCount, 1)
})

t.test('the process over its bound: the slowest socket of any key is closed; a drained one is read again first', async (t) => {
  const buffers = new SendBuffers(4 * mebibyte, 6 * mebibyte)
  const sessions = ['a', 'b', 'c'].map((keyId) => fakeSession(buffers, keyId, 2 * mebibyte))
  for (const each of sessions) buffers.measured(each)
  t.equal(buffers.closedCount, 0, 'at the bound, nothing closed')
  sessions[0].setBytes(0)
  const heavy = fakeSession(buffers, 'd', 3 * mebibyte)
  buffers.measured(heavy)
  t.notOk(sessions[0].aborted(), 'a socket that drained since it last wrote is not taken for slow')
  t.ok(heavy.aborted(), 'the one holding the most closed')
  t.ok(buffers.totalBytes <= 6 * mebibyte, `${buffers.totalBytes} bytes counted`)
  for (const each of sessions) buffers.removed(each)
  t.equal(buffers.totalBytes, 0, 'closed sockets count nothing')
})
