/**
 * Answers a client never reads (docs/API.md, "WebSocket API and live updates"): the send buffers of one key's
 * sockets together, and of all sockets, stay under their bounds (STREAM_KEY_BUFFER_BYTES_MAX,
 * STREAM_PROCESS_BUFFER_BYTES_MAX, small here); past one, the socket with the most unread bytes is closed,
 * and a socket that reads is left alone. Measured on the server: the sessions' buffered bytes.
 */
import t from 'tap'
import { adminCreateKey, createAccount, raiseLimits, scopesAll, sleep } from '../support/api.ts'
import { openRawWs, textFrame, type RawWs } from '../support/raw-ws.ts'
import { call, startTestService } from '../support/service.ts'
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

const sessions = () => [...service.service.stream!.sessions]
const buffered = (keyId?: string) => sessions().filter((session) => keyId === undefined || session.caller?.key?.id === keyId)
  .reduce((sum, session) => sum + session.socket.getBufferedAmount(), 0)

/** A socket authenticated by header that never reads, sent `count` requests for a page of 1,000 entries (~300 KB each). */
async function unreadSocket(secret: string, count: number): Promise<RawWs> {
  const raw = await openRawWs(baseUrl, `Bearer ${secret}`)
  raw.socket.pause()
  for (let index = 0; index < count; index++) {
    await raw.write(textFrame(JSON.stringify({ type: 'request', id: `r${index}`, method: 'GET', path: '/v2/entries?limit=1000' })))
  }
  return raw
}

/** Until every request is answered and the buffers stopped moving (the same for 300 ms), at most 20 s. */
async function settled(): Promise<void> {
  const deadlineMs = Date.now() + 20_000
  let last = -1
  let still = 0
  while (still < 3 && Date.now() < deadlineMs) {
    await sleep(100)
    const now = buffered()
    still = now === last && sessions().every((session) => session.inFlight === 0) ? still + 1 : 0
    last = now
  }
}

t.test('one key\'s unread answers stay under its bound; the slowest sockets are closed, a reader is not', async (t) => {
  const reader = await openSocket(baseUrl, key)
  const hello = await reader.next((message) => message.type === 'authenticated')
  const keyId: string = hello.key
  const raws = await Promise.all(Array.from({ length: 5 }, () => unreadSocket(key, 40)))
  await settled()
  t.ok(buffered(keyId) <= keyBytesMax, `the key's sockets hold ${buffered(keyId)} bytes unread (bound ${keyBytesMax})`)
  const open = sessions().filter((session) => session.caller?.key?.id === keyId).length
  t.ok(open < 6 && service.service.stream!.buffers.closedCount === 6 - open, `${6 - open} of the non-reading sockets closed by the server`)
  reader.send({ type: 'request', id: 'still', method: 'GET', path: '/v2/accounts' })
  t.match(await reader.next((message) => message.id === 'still'), { status: 200 }, 'the socket that reads serves on')
  for (const raw of raws) raw.socket.destroy()
  reader.socket.close()
})

t.test('all sockets\' unread answers stay under the process bound', async (t) => {
  const raws = [...await Promise.all(Array.from({ length: 3 }, () => unreadSocket(key, 24))), ...await Promise.all(Array.from({ length: 3 }, () => unreadSocket(other.secret, 24)))]
  await settled()
  t.ok(buffered() <= processBytesMax, `all sockets hold ${buffered()} bytes unread (bound ${processBytesMax})`)
  t.ok(service.service.stream!.buffers.totalBytes <= processBytesMax, 'as counted')
  for (const raw of raws) raw.socket.destroy()
})
