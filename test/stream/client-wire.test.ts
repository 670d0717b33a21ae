/**
 * trueup/client on the wire, without a network: the responses it scans (src/client/response.ts) read as
 * JSON.parse reads them, for any id, status, headers and body the server's writer makes; and a turn's
 * requests written together with the `ws` socket underneath corked.
 */
import fc from 'fast-check'
import t from 'tap'
import { connect, type WebSocketConstructor, type WebSocketLike } from '../../src/client/index.ts'
import { scanResponse } from '../../src/client/response.ts'
import { responseText } from '../../src/stream/replies.ts'

const json = fc.jsonValue().map((value) => JSON.stringify(value))

t.test('a scanned response reads as the parsed message, whatever the server wrote', async (t) => {
  const headers = fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.string({ maxLength: 20 })), { maxLength: 4 })
  fc.assert(fc.property(fc.string({ minLength: 1, maxLength: 64 }), fc.integer({ min: 100, max: 599 }), json, headers, (id, status, body, pairs) => {
    const text = responseText(id, status, body, pairs)
    const parsed = JSON.parse(text) as { id: string; status: number; headers: object; body: unknown }
    const scanned = scanResponse(text)
    // An id with an escape is left to JSON.parse (null); every other one is scanned.
    if (scanned === null) return JSON.stringify(id).length !== id.length + 2
    return scanned.id === parsed.id && scanned.response.status === parsed.status &&
      JSON.stringify(scanned.response.headers) === JSON.stringify(parsed.headers) && JSON.stringify(scanned.response.body) === JSON.stringify(parsed.body)
  }), { numRuns: 500 })
  t.pass('500 responses scanned as parsed')
})

t.test('other messages and other field orders are left to JSON.parse, or parsed whole on first read', async (t) => {
  t.equal(scanResponse('{"type":"reconciliation","data":{}}'), null, 'not a response')
  t.equal(scanResponse('{"type":"response","id":"1","headers":{},"status":201,"body":null}'), null, 'status after headers')
  t.equal(scanResponse('{"type":"response","id":"1","status":201,"headers":{"a":{}},"body":null}'), null, 'headers not flat')
  const reordered = scanResponse('{"type":"response","id":"7","status":200,"headers":{"x":"}"},"body":{"a":1},"extra":true}')
  t.equal(reordered?.id, '7')
  t.same(reordered?.response.headers, { x: '}' }, 'a brace inside a header value')
  t.same(reordered?.response.body, { a: 1 }, 'a field after the body: the message parsed whole')
  t.same(JSON.parse(JSON.stringify(reordered?.response)), { status: 200, headers: { x: '}' }, body: { a: 1 } }, 'toJSON gives every field')
})

/** A WebSocket as the `ws` package has it: with the net.Socket underneath as _socket; it records sends and corks. */
function fakeWebSocketClass(log: string[]): WebSocketConstructor {
  return class FakeWebSocket implements WebSocketLike {
    readyState = 0
    onopen: ((event: unknown) => void) | null = null
    onmessage: ((event: { readonly data: unknown }) => void) | null = null
    onclose: ((event: { readonly code: number; readonly reason: string }) => void) | null = null
    onerror: ((event: unknown) => void) | null = null
    readonly _socket = { cork: () => log.push('cork'), uncork: () => log.push('uncork') }

    constructor() {
      setImmediate(() => {
        this.readyState = 1
        this.onopen?.({})
      })
    }

    send(text: string): void {
      const message = JSON.parse(text) as { type: string; id?: string }
      log.push(message.type === 'request' ? `request ${message.id}` : message.type)
      const answer = message.type === 'auth' ? '{"type":"authenticated","key":"k","workspace":"w"}' : responseText(message.id!, 201, '{"ok":true}', [])
      setImmediate(() => this.onmessage?.({ data: answer }))
    }

    close(): void {
      this.readyState = 3
    }
  }
}

t.test('the requests of one turn leave together, the socket underneath corked around them', async (t) => {
  const log: string[] = []
  const client = await connect('ws://fake/v2/stream', { key: 'tu_x', WebSocket: fakeWebSocketClass(log), reconnect: false })
  log.length = 0
  const answers = [1, 2, 3].map((amount) => client.request('POST', '/v2/entries', { amount }))
  t.same(log, [], 'nothing written within the turn')
  const responses = await Promise.all(answers)
  t.same(log, ['cork', 'request 1', 'request 2', 'request 3', 'uncork'], 'one corked write of the three')
  t.same(responses.map((response) => [response.status, response.body]), [[201, { ok: true }], [201, { ok: true }], [201, { ok: true }]], 'each answered')
  client.close()
})
