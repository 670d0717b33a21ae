/**
 * The WebSocket client (src/client/index.ts) on its own, against a scripted socket: the first message
 * authenticates, requests carry ids and are answered by them, subscriptions deliver by topic, a drop fails
 * what is unanswered and reconnects with a doubling delay (only a connection that was authenticated), and
 * close() and refused keys stop it for good.
 */
import t, { type Test } from 'tap'
import { connect, StreamError, type StreamClient, type WebSocketConstructor, type WebSocketLike } from '../../src/client/index.ts'

interface Scripted extends WebSocketLike {
  readonly url: string
  readonly sent: Record<string, any>[]
  closedWith: { code: number; reason: string } | null
  serverOpen(): void
  serverSend(message: unknown): void
  serverClose(code: number, reason?: string): void
  serverError(message: string): void
}

/** A WHATWG-like socket class (no `on`: the key goes in the first message), each instance kept in `made`. */
function scriptedClass(): { Socket: WebSocketConstructor; made: Scripted[] } {
  const made: Scripted[] = []
  class Socket implements Scripted {
    readyState = 0
    readonly sent: Record<string, any>[] = []
    closedWith: { code: number; reason: string } | null = null
    onopen: Scripted['onopen'] = null
    onmessage: Scripted['onmessage'] = null
    onclose: Scripted['onclose'] = null
    onerror: Scripted['onerror'] = null
    constructor(readonly url: string) { made.push(this) }
    send(data: string): void {
      if (this.readyState !== 1) throw new Error('send on a socket not open')
      this.sent.push(JSON.parse(data) as Record<string, any>)
    }
    close(code = 1000, reason = ''): void { this.closedWith = { code, reason }; this.readyState = 3 }
    serverOpen(): void { this.readyState = 1; this.onopen?.({}) }
    serverSend(message: unknown): void { this.onmessage?.({ data: typeof message === 'string' ? message : JSON.stringify(message) }) }
    serverClose(code: number, reason = ''): void { this.readyState = 3; this.onclose?.({ code, reason }) }
    serverError(message: string): void { this.onerror?.({ message }) }
  }
  return { Socket, made }
}

const turn = () => new Promise((resolve) => setImmediate(resolve))
const url = 'ws://127.0.0.1:1/v2/stream'

/** The client connected through the scripted socket: opened, its key sent, authenticated. */
async function connected(options: { reconnect?: boolean; reconnectDelayMaxMs?: number; onReconnect?: () => void } = {}) {
  const { Socket, made } = scriptedClass()
  const client = connect(url, { key: 'tu_key', WebSocket: Socket, ...options })
  await turn()
  made[0].serverOpen()
  made[0].serverSend({ type: 'authenticated' })
  return { client: await client, made }
}

/** setTimeout replaced for one test: the delays asked for, their callbacks run by hand. */
function recordedTimers(t: Test): { delays: number[]; runNext: () => void } {
  const original = globalThis.setTimeout
  const pending: (() => void)[] = []
  const delays: number[] = []
  globalThis.setTimeout = ((callback: () => void, ms: number) => { delays.push(ms); pending.push(callback); return 0 }) as unknown as typeof setTimeout
  t.teardown(() => { globalThis.setTimeout = original })
  return { delays, runNext: () => pending.shift()?.() }
}

t.test('connect: the key is the first message; connect resolves once the server says authenticated', async (t) => {
  const { Socket, made } = scriptedClass()
  let resolved = false
  const client = connect(url, { key: 'tu_secret', WebSocket: Socket }).then((value) => { resolved = true; return value })
  await turn()
  t.equal(made.length, 1)
  t.equal(made[0].url, url)
  made[0].serverOpen()
  t.same(made[0].sent, [{ type: 'auth', key: 'tu_secret' }])
  await turn()
  t.notOk(resolved, 'not before authenticated')
  made[0].serverSend({ type: 'authenticated' })
  ;(await client).close()
  t.ok(resolved)
})

t.test('requests: numbered ids, one envelope each, answered by id in any order, both response spellings', async (t) => {
  const { client, made } = await connected()
  const socket = made[0]
  const first = client.request('GET', '/v2/accounts')
  const second = client.request('POST', '/v2/entries', { lines: [] }, { 'idempotency-key': 'k1' })
  await turn()
  t.same(socket.sent.slice(1), [
    { type: 'request', id: '1', method: 'GET', path: '/v2/accounts' },
    { type: 'request', id: '2', method: 'POST', path: '/v2/entries', headers: { 'idempotency-key': 'k1' }, body: { lines: [] } },
  ], 'no body or headers field when none is given')
  socket.serverSend('{"type":"response","id":"2","status":201,"headers":{"replayed":"false"},"body":{"id":"e1"}}')
  socket.serverSend({ id: '1', type: 'response', status: 200, headers: {}, body: { data: [] } })
  const [one, two] = await Promise.all([first, second])
  t.equal(one.status, 200)
  t.same(one.body, { data: [] }, 'a response in another field order is parsed whole')
  t.equal(two.status, 201)
  t.same(two.headers, { replayed: 'false' })
  t.same(two.body, { id: 'e1' })
  socket.serverSend({ type: 'response', id: '99', status: 200, headers: {}, body: null })
  t.pass('an answer to no request is ignored')
  client.close()
})

t.test('an error message naming a request rejects it with the server\'s code and details', async (t) => {
  const { client, made } = await connected()
  const refused = client.request('GET', '/v2/x')
  await turn()
  made[0].serverSend({ type: 'error', id: '1', error: { code: 'request_invalid', message: 'bad', details: [{ path: '/path', message: 'm' }] } })
  const error = await refused.then(() => null, (caught: unknown) => caught)
  t.ok(error instanceof StreamError)
  t.match(error, { code: 'request_invalid', message: 'bad', details: [{ path: '/path', message: 'm' }] })
  made[0].serverSend({ type: 'error', error: { code: 'message_invalid', message: 'no id' } })
  t.pass('an error naming nothing is ignored')
  client.close()
})

t.test('subscriptions: updates reach the callbacks of their topic only, until unsubscribed', async (t) => {
  const { client, made } = await connected()
  const socket = made[0]
  const seen: string[] = []
  const subscribing = client.subscribe({ reconciliations: ['rec_1'], accounts: ['Cash'] }, (update) => seen.push(`${update.type}`))
  await turn()
  t.same(socket.sent[1], { type: 'subscribe', id: 's1', reconciliations: ['rec_1'], accounts: ['Cash'] })
  socket.serverSend({ type: 'subscribed', id: 's1', reconciliations: ['rec_1'], accounts: ['acc_9'] })
  const subscription = await subscribing
  t.same(subscription.accounts, ['acc_9'], 'the ids as the server resolved them')
  socket.serverSend({ type: 'reconciliation', data: { id: 'rec_1' } })
  socket.serverSend({ type: 'balance', data: { account: 'acc_9' } })
  socket.serverSend({ type: 'balance', data: { account: 'Cash' } })
  socket.serverSend({ type: 'reconciliation', data: { id: 'rec_2' } })
  t.same(seen, ['reconciliation', 'balance'], 'by the resolved id; other topics not delivered')
  const leaving = subscription.unsubscribe()
  await turn()
  t.same(socket.sent.at(-1), { type: 'unsubscribe', id: 's2', reconciliations: ['rec_1'], accounts: ['acc_9'] })
  socket.serverSend({ type: 'unsubscribed', id: 's2', reconciliations: ['rec_1'], accounts: ['acc_9'] })
  await leaving
  socket.serverSend({ type: 'reconciliation', data: { id: 'rec_1' } })
  t.equal(seen.length, 2, 'nothing after unsubscribe')
  client.close()
})

t.test('a subscription the server refuses rejects, and listens to nothing', async (t) => {
  const { client, made } = await connected()
  const seen: unknown[] = []
  const subscribing = client.subscribe({ reconciliations: ['rec_x'] }, (update) => seen.push(update))
  await turn()
  made[0].serverSend({ type: 'error', id: 's1', error: { code: 'not_found', message: 'no window' } })
  await t.rejects(subscribing, { code: 'not_found' })
  made[0].serverSend({ type: 'reconciliation', data: { id: 'rec_x' } })
  t.same(seen, [])
  client.close()
})

t.test('a first connection that fails rejects connect and leaves nothing running', async (t) => {
  const timers = recordedTimers(t)
  const { Socket, made } = scriptedClass()
  const refusedConnection = connect(url, { key: 'k', WebSocket: Socket })
  await turn()
  made[0].serverError('connect ECONNREFUSED')
  await t.rejects(refusedConnection, { code: 'unavailable' })
  const second = scriptedClass()
  const refusedKey = connect(url, { key: 'k', WebSocket: second.Socket })
  await turn()
  second.made[0].serverError('Unexpected server response: 401')
  second.made[0].serverClose(1006)
  await t.rejects(refusedKey, { code: 'unauthenticated' }, 'a 401 upgrade is a refused key, not an outage')
  t.same(timers.delays, [], 'no reconnect timer')
  t.equal(made.length + second.made.length, 2)
})

t.test('a drop fails what is unanswered, reconnects after 100 ms doubling to the bound, and subscribes again', async (t) => {
  const timers = recordedTimers(t)
  let reconnects = 0
  const { client, made } = await connected({ reconnectDelayMaxMs: 300, onReconnect: () => reconnects++ })
  const seen: string[] = []
  const subscribing = client.subscribe({ reconciliations: ['rec_1'] }, (update) => seen.push((update.data as { id: string }).id))
  await turn()
  made[0].serverSend({ type: 'subscribed', id: 's1', reconciliations: ['rec_1'], accounts: [] })
  await subscribing
  const unanswered = client.request('GET', '/v2/accounts')
  await turn()
  made[0].serverClose(1001, 'going away')
  await t.rejects(unanswered, { code: 'unavailable', message: /1001: going away/ })
  t.same(timers.delays, [100])
  const waiting = client.request('GET', '/v2/workspace')
  // Three failed attempts: each waits twice as long, up to the bound.
  for (let attempt = 1; attempt <= 3; attempt++) {
    timers.runNext()
    t.equal(made.length, attempt + 1)
    made[attempt].serverError('connect ECONNREFUSED')
  }
  t.same(timers.delays, [100, 200, 300, 300])
  timers.runNext()
  const socket = made[4]
  socket.serverOpen()
  socket.serverSend({ type: 'authenticated' })
  await turn()
  t.same(socket.sent.slice(1).map((message) => message.type).sort(), ['request', 'subscribe'], 'the waiting request goes out, the subscription is made again')
  const again = socket.sent.find((message) => message.type === 'subscribe')!
  t.same(again.reconciliations, ['rec_1'])
  const request = socket.sent.find((message) => message.type === 'request')!
  socket.serverSend({ type: 'subscribed', id: again.id, reconciliations: ['rec_1'], accounts: [] })
  socket.serverSend({ type: 'response', id: request.id, status: 200, headers: {}, body: { id: 'ws' } })
  t.same((await waiting).body, { id: 'ws' })
  await turn()
  t.equal(reconnects, 1, 'told once the subscriptions are made again')
  socket.serverSend({ type: 'reconciliation', data: { id: 'rec_1' } })
  t.same(seen, ['rec_1'])
  socket.serverClose(1006)
  t.equal(timers.delays.at(-1), 100, 'the delay starts again at 100 ms once a connection was authenticated')
  client.close()
})

t.test('no reconnect: after close(), after a revoked key (4401), or with reconnect false', async (t) => {
  const timers = recordedTimers(t)
  const closing = await connected()
  const pending = closing.client.request('GET', '/v2/accounts')
  await turn()
  closing.client.close()
  t.same(closing.made[0].closedWith, { code: 1000, reason: 'client closed' })
  await t.rejects(pending, { code: 'unavailable', message: 'The client was closed.' })
  closing.made[0].serverClose(1000, 'client closed')
  await t.rejects(closing.client.request('GET', '/v2/accounts'), StreamError, 'a request after close fails')

  const revoked = await connected()
  const request = revoked.client.request('GET', '/v2/accounts')
  await turn()
  revoked.made[0].serverClose(4401, 'unauthenticated')
  await t.rejects(request, { code: 'unauthenticated' })

  const off = await connected({ reconnect: false })
  off.made[0].serverClose(1006)
  await t.rejects(off.client.request('GET', '/v2/x'), { code: 'unavailable' })
  t.same(timers.delays, [], 'no timer was set')
  t.equal(closing.made.length + revoked.made.length + off.made.length, 3)
})

t.test('messages of one turn leave together, in order, once the turn ends', async (t) => {
  const { client, made }: { client: StreamClient; made: Scripted[] } = await connected()
  const answers = Array.from({ length: 5 }, (_, index) => client.request('GET', `/v2/accounts/${index}`))
  t.equal(made[0].sent.length, 1, 'nothing written within the turn')
  await turn()
  t.same(made[0].sent.slice(1).map((message) => message.path), [0, 1, 2, 3, 4].map((index) => `/v2/accounts/${index}`))
  for (const message of made[0].sent.slice(1)) made[0].serverSend({ type: 'response', id: message.id, status: 200, headers: {}, body: message.path })
  t.same((await Promise.all(answers)).map((answer) => answer.body), [0, 1, 2, 3, 4].map((index) => `/v2/accounts/${index}`))
  client.close()
})
