/**
 * A socket's bounds without a network (src/stream/session.ts, messages.ts): updates coalesced per topic
 * while the send buffer is over 1 MiB (latest wins, order kept), and 429 past 4,096 unanswered requests.
 */
import t from 'tap'
import type { Shard } from '../../src/shard/operation.ts'
import type { ApiRequest, Lifecycle } from '../../src/api/lifecycle.ts'
import type { KeyRecord, WorkspaceRecord } from '../../src/ledger/system.ts'
import type { LiveHub } from '../../src/stream/hub.ts'
import { handleMessage, streamTransport, type StreamContext, type StreamExchange } from '../../src/stream/messages.ts'
import { coalesceAboveBytes, inFlightMax, StreamSession, type SocketLike } from '../../src/stream/session.ts'

function fakeSocket(): SocketLike & { sent: string[]; bufferedBytes: number; joined: Set<string> } {
  return {
    sent: [], bufferedBytes: 0, joined: new Set(),
    send(text) { this.sent.push(text); return 1 },
    getBufferedAmount() { return this.bufferedBytes },
    cork(cb) { cb() },
    end() {},
    close() {},
    subscribe(topic) { this.joined.add(topic) },
    unsubscribe(topic) { this.joined.delete(topic) },
  }
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

t.test('a session that keeps up is on its topics; over 1 MiB buffered it leaves them and keeps the latest per topic', async (t) => {
  const socket = fakeSocket()
  const session = new StreamSession(socket)
  for (const topic of ['r:a', 'r:b']) session.topics.add(topic)
  session.started('ack', [['r:a', 'a0'], ['r:b', 'b0']])
  t.same(socket.sent, ['ack', 'a0', 'b0'], 'the acknowledgement, then the current values')
  t.same([...socket.joined], ['r:a', 'r:b'], 'then on the topics')
  t.equal(session.takes('r:a', 'a1'), false, 'an update is left to the topic\'s publish')
  t.equal(session.takes('r:x', 'x1'), true, 'a topic it does not watch: nothing to publish to it')
  socket.bufferedBytes = coalesceAboveBytes + 1
  for (const [topic, text] of [['r:a', 'a2'], ['r:b', 'b1'], ['r:a', 'a3'], ['r:b', 'b2'], ['r:a', 'a4']]) t.equal(session.takes(topic, text), true, `${text} taken aside`)
  t.same([...socket.joined], [], 'off the topics while behind')
  t.same(socket.sent, ['ack', 'a0', 'b0'], 'nothing sent while over the bound')
  t.equal(session.pendingCount, 2, 'one waiting update per topic: memory bounded by the topics, not the updates')
  t.equal(session.coalescedCount, 3, 'a2, a3 and b1 were replaced')
  session.drained()
  t.same(socket.sent, ['ack', 'a0', 'b0'], 'still over the bound: still waiting')
  socket.bufferedBytes = 0
  session.drained()
  t.same(socket.sent, ['ack', 'a0', 'b0', 'a4', 'b2'], 'the latest of each topic, in the order the topics first waited')
  t.same([...socket.joined].sort(), ['r:a', 'r:b'], 'back on the topics')
  t.equal(session.takes('r:b', 'b3'), false, 'and updates are published to it again')
  session.stop('r:b')
  t.same([...socket.joined], ['r:a'], 'unsubscribed: off that topic')
})

t.test(`over ${inFlightMax} unanswered requests on a socket: 429 for the excess`, async (t) => {
  const socket = fakeSocket()
  const session = new StreamSession(socket)
  const key = { id: 'key_1', workspace: 'w', scopes: [], accounts: null, revokedAtMs: null } as unknown as KeyRecord
  const workspace = { id: 'w' } as unknown as WorkspaceRecord
  session.caller = { key, workspace }
  const running: StreamExchange[] = []
  const lifecycle = { run: (_request: unknown, exchange: StreamExchange) => { running.push(exchange) } } as unknown as Lifecycle<StreamExchange>
  const shard = { system: { workspaces: new Map([['w', workspace]]) } } as unknown as Shard
  const context: StreamContext = { shard, hub: {} as LiveHub, lifecycle, clock: () => 0, bodyBytesMax: 1024 * 1024 }
  const send = (id: string) => handleMessage(context, session, Buffer.from(JSON.stringify({ type: 'request', id, method: 'GET', path: '/v2/accounts' })))
  for (let index = 0; index < inFlightMax; index++) send(`r${index}`)
  t.equal(running.length, inFlightMax, 'every one up to the bound runs')
  send('over')
  await turn()
  t.equal(running.length, inFlightMax, 'the excess does not run')
  t.match(JSON.parse(socket.sent.at(-1)!), { type: 'response', id: 'over', status: 429, headers: { 'retry-after': '1' }, body: { error: { code: 'rate_limited' } } })
  streamTransport.respond(running[0], 200, '{"data":[]}', [])
  await turn()
  t.match(JSON.parse(socket.sent.at(-1)!), { type: 'response', id: 'r0', status: 200, body: { data: [] } }, 'an answer frees a place')
  send('again')
  t.equal(running.length, inFlightMax + 1, 'and the next request runs')
})

t.test('each request hands the lifecycle the socket\'s key with the workspace record as it is now, and its headers without Authorization', async (t) => {
  const session = new StreamSession(fakeSocket())
  const key = { id: 'key_1', workspace: 'w', scopes: [], accounts: null, revokedAtMs: null } as unknown as KeyRecord
  const opened = { id: 'w', limits: 'at open' } as unknown as WorkspaceRecord
  session.caller = { key, workspace: opened }
  const requests: ApiRequest[] = []
  const lifecycle = { run: (request: ApiRequest) => { requests.push(request) } } as unknown as Lifecycle<StreamExchange>
  const workspaces = new Map([['w', opened]])
  const shard = { system: { workspaces } } as unknown as Shard
  const context: StreamContext = { shard, hub: {} as LiveHub, lifecycle, clock: () => 0, bodyBytesMax: 1024 * 1024 }
  const send = (message: object) => handleMessage(context, session, Buffer.from(JSON.stringify({ type: 'request', method: 'get', path: '/v2/accounts', ...message })))
  send({ id: 'a' })
  send({ id: 'b', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer other', 'X-Other': 'v' } })
  const replaced = { id: 'w', limits: 'replaced' } as unknown as WorkspaceRecord
  workspaces.set('w', replaced)
  send({ id: 'c' })
  workspaces.delete('w')
  send({ id: 'd' })
  t.equal(requests.length, 4)
  t.equal(requests[0].caller?.key, key)
  t.equal(requests[0].caller?.workspace, opened)
  t.equal(requests[1].caller?.workspace, opened)
  t.equal(requests[2].caller?.workspace, replaced, 'a workspace record replaced since the last request: the new one')
  t.equal(requests[3].caller?.workspace, opened, 'none: the one the socket opened with')
  t.same([...requests[0].headers], [], 'no headers')
  t.same([...requests[1].headers], [['content-type', 'application/json'], ['x-other', 'v']], 'names lower case, Authorization left out')
  t.same([...requests[2].headers], [], 'a request after one with headers has none of them')
  t.equal(requests[0].method, 'GET')
})
