/**
 * A socket at /v2/stream before it authenticates (docs/API.md, "WebSocket API and live updates"): it may send
 * one small first message. A frame header announcing more, a message over the bound (whole or in fragments),
 * a malformed or non-object first message close it at once; partial frames never hold memory past the auth
 * timeout. Spoken byte for byte on TCP (test/support/raw-ws.ts), so the bytes the server let in are counted.
 */
import fc from 'fast-check'
import t from 'tap'
import { firstMessageBytesMax as streamFirstMessageBytesMax } from '../../src/stream/messages.ts'
import { call, startTestService } from '../support/service.ts'
import { frameHeader, openRawWs, textFrame, writeUntilClosed } from '../support/raw-ws.ts'
import { openSocket } from '../support/ws.ts'

const authTimeoutMs = 1_500
const service = await startTestService({ env: { STREAM_AUTH_TIMEOUT_MS: String(authTimeoutMs) } })
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
const mebibyte = 1024 * 1024

t.test('the bound is a few KiB', async (t) => {
  t.equal(streamFirstMessageBytesMax, 4 * 1024)
})

t.test('a frame header announcing 16 MiB closes the socket at once, before 1 MiB has come in', async (t) => {
  const raw = await openRawWs(baseUrl)
  const startedMs = Date.now()
  await raw.write(frameHeader(16 * mebibyte))
  const written = await writeUntilClosed(raw, 16 * 1024, 4 * mebibyte, 2)
  const { atMs } = await raw.closed
  t.ok(written < mebibyte, `the server took ${written} bytes before closing`)
  t.ok(atMs - startedMs < authTimeoutMs / 2, `closed after ${atMs - startedMs} ms, not at the auth timeout`)
})

t.test('a first message over the bound closes the socket, whole or in fragments', async (t) => {
  const whole = await openRawWs(baseUrl)
  await whole.write(textFrame(`{"type":"auth","key":"${key}","pad":"${' '.repeat(streamFirstMessageBytesMax)}"}`))
  t.ok((await whole.closed).atMs > 0, 'one frame over the bound')
  t.same(whole.texts, [], 'no answer to it')

  const fragments = await openRawWs(baseUrl)
  const startedMs = Date.now()
  await fragments.write(textFrame(`{"type":"auth","key":"${key}","pad":"${'x'.repeat(3000)}`, { fin: false }))
  await fragments.write(textFrame(`${'x'.repeat(3000)}"}`, { fin: true, opcode: 0 }))
  t.ok((await fragments.closed).atMs - startedMs < authTimeoutMs / 2, 'fragments adding up past the bound')
})

t.test('a first message within the bound authenticates, and the socket keeps the bound', async (t) => {
  const auth = `{"type":"auth","key":"${key}"}`
  const raw = await openRawWs(baseUrl)
  await raw.write(textFrame(auth.slice(0, -1) + ' '.repeat(streamFirstMessageBytesMax - auth.length) + '}'))
  const socket = await openSocket(baseUrl)
  socket.send({ type: 'auth', key })
  t.match(await socket.next(), { type: 'authenticated' }, 'authenticated by its first message')
  socket.send({ type: 'request', id: 'r1', method: 'GET', path: '/v2/accounts' })
  t.match(await socket.next((message) => message.id === 'r1'), { type: 'response', status: 200 })
  socket.send({ type: 'request', id: 'big', method: 'GET', path: `/v2/accounts?x=${'y'.repeat(streamFirstMessageBytesMax)}` })
  await socket.closed
  t.pass('a frame over the bound on a socket authenticated by message: closed')
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(raw.texts.length, 1, 'the padded auth message was answered')
  t.match(JSON.parse(raw.texts[0]), { type: 'authenticated' })
  raw.socket.destroy()
})

t.test('a socket authenticated by the upgrade header takes frames up to the import limit', async (t) => {
  const socket = await openSocket(baseUrl, key)
  await socket.next((message) => message.type === 'authenticated')
  socket.send({ type: 'request', id: 'big', method: 'POST', path: '/v2/entries', body: { lines: [], description: 'x'.repeat(2 * mebibyte) } })
  t.match(await socket.next((message) => message.id === 'big'), { status: 413, body: { error: { code: 'body_too_large' } } }, 'answered by the route\'s body limit, the socket stays')
  socket.socket.close()
})

t.test('a malformed or non-object first message closes with 4401, unanswered', async (t) => {
  for (const text of ['{nope', '[]', '"auth"', '42', 'null', '{"type":1}', '{}', '\u00ff\u00fe']) {
    const socket = await openSocket(baseUrl)
    socket.send(text)
    t.equal((await socket.closed).code, 4401, `first message ${JSON.stringify(text)}`)
    t.same(socket.messages, [], 'no answer before the close')
  }
})

t.test('partial frames before auth: every socket closed by the auth timeout at the latest, the service unharmed', async (t) => {
  const shapes = fc.record({
    announced: fc.oneof(fc.integer({ min: 0, max: 125 }), fc.integer({ min: 126, max: 65535 }), fc.integer({ min: 65536, max: 2 ** 40 })),
    fin: fc.boolean(),
    opcode: fc.constantFrom(0, 1, 2, 8, 9, 3),
    cut: fc.integer({ min: 0, max: 14 }),
    payloadBytes: fc.integer({ min: 0, max: 8 * 1024 }),
  })
  const samples = fc.sample(shapes, { numRuns: 24, seed: Number(process.env.FUZZ_SEED ?? 24) })
  const outcomes = await Promise.all(samples.map(async (shape) => {
    const raw = await openRawWs(baseUrl)
    const startedMs = Date.now()
    const header = frameHeader(shape.announced, { fin: shape.fin, opcode: shape.opcode })
    await raw.write(header.subarray(0, Math.min(header.length, shape.cut)))
    if (shape.cut >= header.length && shape.payloadBytes > 0) await raw.write(Buffer.alloc(Math.min(shape.payloadBytes, shape.announced), 0x20))
    const { atMs } = await raw.closed
    return { shape, afterMs: atMs - startedMs }
  }))
  for (const { shape, afterMs } of outcomes) t.ok(afterMs < authTimeoutMs + 1_000, `closed after ${afterMs} ms: ${JSON.stringify(shape)}`)
  t.equal((await call(baseUrl, 'GET', '/healthz')).status, 200, 'the service still answers')
  const socket = await openSocket(baseUrl)
  socket.send({ type: 'auth', key })
  t.match(await socket.next(), { type: 'authenticated' }, 'and authenticates the next socket')
  socket.socket.close()
})
