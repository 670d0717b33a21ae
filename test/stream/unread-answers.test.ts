/**
 * Answers a client never reads (docs/API.md, "WebSocket API and live updates"): the send buffers of one key's
 * sockets together, and of all sockets, stay under their bounds (STREAM_KEY_BUFFER_BYTES_MAX,
 * STREAM_PROCESS_BUFFER_BYTES_MAX, small here); past one, the socket with the most unread bytes is closed,
 * and a socket that reads is left alone. Measured on the server: the sessions' buffered bytes, on every thread
 * that serves sockets (with EDGE_THREADS=1 the bounds are the process's, not each thread's).
 */
import t from 'tap'
import { adminCreateKey, createAccount, raiseLimits, scopesAll, sleep } from '../support/api.ts'
import { openRawWs, textFrame, type RawWs } from '../support/raw-ws.ts'
import { call, startTestService } from '../support/service.ts'
import type { EdgeCounts } from '../../src/edge/stream.ts'
import { openSocket } from '../support/ws.ts'

const mebibyte = 1024 * 1024
const keyBytesMax = 2 * mebibyte
const processBytesMax = 3 * mebibyte
const service = await startTestService({ env: { STREAM_KEY_BUFFER_BYTES_MAX: String(keyBytesMax), STREAM_PROCESS_BUFFER_BYTES_MAX: String(processBytesMax) } })
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')
await createAccount(baseUrl, key, 'assets:bank')
await createAccount(baseUrl, key, 'income:sales')
const entries = Array.from({ length: 1000 }, (_, index) => ({
  lines: [{ account: 'assets:bank', amount: index + 1 }, { account: 'income:sales', amount: -(index + 1) }], description: `entry ${index} ${'d'.repeat(200)}`,
}))
const seeded = await call(baseUrl, 'POST', '/v2/entries/batch', { key, body: { entries } })
if (seeded.status !== 201) throw new Error(`seeding: ${seeded.status} ${seeded.text}`)
const other = await adminCreateKey(service, 'default', scopesAll)

/** The sessions of every thread that serves sockets, and their counts, as they are now. */
const counts = () => service.service.edgeCounts()
const buffered = (now: EdgeCounts, keyId?: string) => now.sessions.filter((session) => keyId === undefined || session.keyId === keyId)
  .reduce((sum, session) => sum + session.bufferedAmount, 0)

/** A socket authenticated by header that never reads, sent `count` requests for a page of 1,000 entries (~300 KB each). */
async function unreadSocket(secret: string, count: number): Promise<RawWs> {
  const raw = await openRawWs(baseUrl, `Bearer ${secret}`)
  raw.socket.pause()
  for (let index = 0; index < count; index++) {
    await raw.write(textFrame(JSON.stringify({ type: 'request', id: `r${index}`, method: 'GET', path: '/v2/entries?limit=1000' })))
  }
  return raw
}

/** Until every request is answered and the buffers stopped moving (the same for 300 ms), at most 20 s; the counts then. */
async function settled(): Promise<EdgeCounts> {
  const deadlineMs = Date.now() + 20_000
  let last = -1
  let still = 0
  let now = await counts()
  while (still < 3 && Date.now() < deadlineMs) {
    await sleep(100)
    now = await counts()
    still = buffered(now) === last && now.sessions.every((session) => session.inFlight === 0) ? still + 1 : 0
    last = buffered(now)
  }
  return now
}

t.test('one key\'s unread answers stay under its bound; the slowest sockets are closed, a reader is not', async (t) => {
  const reader = await openSocket(baseUrl, key)
  const hello = await reader.next((message) => message.type === 'authenticated')
  const keyId: string = hello.key
  const raws = await Promise.all(Array.from({ length: 5 }, () => unreadSocket(key, 40)))
  const now = await settled()
  t.ok(buffered(now, keyId) <= keyBytesMax, `the key's sockets hold ${buffered(now, keyId)} bytes unread (bound ${keyBytesMax})`)
  const open = now.sessions.filter((session) => session.keyId === keyId).length
  t.ok(open < 6 && now.closedCount === 6 - open, `${6 - open} of the non-reading sockets closed by the server`)
  reader.send({ type: 'request', id: 'still', method: 'GET', path: '/v2/accounts' })
  t.match(await reader.next((message) => message.id === 'still'), { status: 200 }, 'the socket that reads serves on')
  for (const raw of raws) raw.socket.destroy()
  reader.socket.close()
})

t.test('all sockets\' unread answers stay under the process bound', async (t) => {
  const raws = [...await Promise.all(Array.from({ length: 3 }, () => unreadSocket(key, 24))), ...await Promise.all(Array.from({ length: 3 }, () => unreadSocket(other.secret, 24)))]
  const now = await settled()
  t.ok(buffered(now) <= processBytesMax, `all sockets hold ${buffered(now)} bytes unread (bound ${processBytesMax})`)
  t.ok(now.totalBytes <= processBytesMax, 'as counted')
  for (const raw of raws) raw.socket.destroy()
})

t.test('sockets each under the key\'s bound, together over it: the bound is the process\'s, whichever threads serve them', async (t) => {
  const third = await adminCreateKey(service, 'default', scopesAll)
  const socketsCount = 4
  const raws = await Promise.all(Array.from({ length: socketsCount }, () => unreadSocket(third.secret, 0)))
  const before = (await counts()).closedCount
  const eachBytesMin = 0.6 * mebibyte
  // One answer (~300 KB) to each socket in turn, until each holds eachBytesMin unread (together over the key's bound)
  // or the server closed one; the kernel's buffers take the first few MiB of each.
  let now = await counts()
  for (let round = 0; round < 80 && now.closedCount === before; round++) {
    const mine = now.sessions.filter((session) => session.keyId === third.id)
    if (mine.length === socketsCount && mine.every((session) => session.bufferedAmount >= eachBytesMin)) break
    for (const [index, raw] of raws.entries()) await raw.write(textFrame(JSON.stringify({ type: 'request', id: `t${round}-${index}`, method: 'GET', path: '/v2/entries?limit=1000' })))
    now = await settled()
  }
  now = await settled()
  t.ok(buffered(now, third.id) <= keyBytesMax, `the key's sockets hold ${buffered(now, third.id)} bytes unread (bound ${keyBytesMax})`)
  t.ok(now.closedCount > before, `${now.closedCount - before} of its sockets closed by the server`)
  for (const raw of raws) raw.socket.destroy()
})
