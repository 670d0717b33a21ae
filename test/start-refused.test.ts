/** A refused start (src/start-refused.ts): an Error named StartRefused with the operator's line, and errno codes as the few words a message ends with. */
import t from 'tap'
import { reasonOf, StartRefused } from '../src/start-refused.ts'

function errno(code: string, message = `${code}: something, open '/data'`): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code })
}

t.test('StartRefused is an Error carrying the message as is', async (t) => {
  const refused = new StartRefused('data dir /data is in use by another trueup (pid 12)')
  t.ok(refused instanceof Error)
  t.equal(refused.name, 'StartRefused')
  t.equal(refused.message, 'data dir /data is in use by another trueup (pid 12)')
  t.equal(String(refused), 'StartRefused: data dir /data is in use by another trueup (pid 12)')
})

t.test('the errno codes an operator meets, in words', async (t) => {
  t.equal(reasonOf(errno('EACCES')), 'permission denied')
  t.equal(reasonOf(errno('EPERM')), 'permission denied')
  t.equal(reasonOf(errno('EROFS')), 'read-only file system')
  t.equal(reasonOf(errno('ENOTDIR')), 'not a directory')
  t.equal(reasonOf(errno('ENOSPC')), 'no space left on the device')
})

t.test('anything else: the first line of its message, or the value as text', async (t) => {
  t.equal(reasonOf(errno('EIO', 'EIO: i/o error, read\n    at stack frame')), 'EIO: i/o error, read', 'one line only')
  t.equal(reasonOf(new Error('plain')), 'plain')
  t.equal(reasonOf('a string'), 'a string')
  t.equal(reasonOf(null), 'null')
  t.equal(reasonOf(undefined), 'undefined')
})
