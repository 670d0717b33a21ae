/**
 * Tests for subscribe and unsubscribe (src/stream/subscriptions.ts) over a stand-in shard, a real hub and a
 * session on a recording socket: shape, empty and scope refusals sent as error messages with nothing asked of
 * the shard; a subscription's operation, acknowledgement, values and watched topics; a refusal from the shard;
 * a socket closed before the answer; unsubscribe stopping only the socket's own topics.
 */
import t from 'tap'
import { LiveHub } from '../../src/stream/hub.ts'
import type { StreamContext } from '../../src/stream/messages.ts'
import { subscribe, unsubscribe } from '../../src/stream/subscriptions.ts'
import { authenticatedAs, recordingSession, settled, standInShard } from '../support/stream-stand-ins.ts'

const nowMs = 1_700_000_000_000

function setUp() {
  const stand = standInShard()
  const published: [string, string][] = []
  const hub = new LiveHub(stand.shard, (topic, text) => published.push([topic, text]))
  const context = { shard: stand.shard, hub, clock: () => nowMs } as unknown as StreamContext
  const session = recordingSession()
  return { ...stand, hub, published, context, session }
}

const subscribedReply = (initial: [string, string][], reconciliations: string[], accounts: string[]) => ({ status: 200, headers: [], body: JSON.stringify({ reconciliations, accounts, initial }) })

t.test('refused before the shard: a bad shape, no topic at all, a missing scope; each an error message carrying the id', async (t) => {
  const cases: [Record<string, unknown>, string[], string, string][] = [
    [{ type: 'subscribe', id: 'm1', accounts: 'assets:bank' }, ['accounts:read'], 'request_invalid', 'accounts not an array'],
    [{ type: 'subscribe', id: 'm2', accounts: [''] }, ['accounts:read'], 'request_invalid', 'an empty account name'],
    [{ type: 'subscribe', id: 'm3' }, ['accounts:read', 'recon:read'], 'request_invalid', 'nothing named'],
    [{ type: 'subscribe', id: 'm4', reconciliations: [], accounts: [] }, ['accounts:read', 'recon:read'], 'request_invalid', 'both empty'],
    [{ type: 'subscribe', id: 'm5', reconciliations: ['rec_1'] }, ['accounts:read'], 'scope_missing', 'a window without recon:read'],
    [{ type: 'unsubscribe', id: 'm6', accounts: ['assets:bank'] }, ['recon:read'], 'scope_missing', 'an account without accounts:read'],
  ]
  for (const [message, scopes, code, what] of cases) {
    const { context, session, sent } = setUp()
    authenticatedAs(session, scopes as never)
    if (message.type === 'subscribe') subscribe(context, session, message)
    else unsubscribe(context, session, message)
    await settled()
    t.equal(session.written.length, 1, `${what}: one message`)
    const answer = JSON.parse(session.written[0])
    t.match(answer, { type: 'error', id: message.id, error: { code } }, what)
    t.same(sent, [], `${what}: nothing asked of the shard`)
  }
  const { context, session, sent } = setUp()
  authenticatedAs(session, ['accounts:read'])
  subscribe(context, session, { type: 'subscribe', id: 'x'.repeat(65), accounts: ['a'] })
  await settled()
  t.same(JSON.parse(session.written[0]).error.code, 'request_invalid', 'an id over 64 characters is refused')
  t.notOk('id' in JSON.parse(session.written[0]), 'and not echoed')
  t.same(sent, [])
})

t.test('subscribe: the operation names the key\'s workspace, visibility and the clock; ack, then values; the topics watched', async (t) => {
  const { context, session, sent, replies, update, published } = setUp()
  authenticatedAs(session, ['accounts:read', 'recon:read'], 'w', ['assets:*'])
  replies.set('subscribe', subscribedReply([['r:rec_1', '{"type":"reconciliation"}'], ['a:acc_1', '{"type":"balance"}']], ['rec_1'], ['acc_1']))
  subscribe(context, session, { type: 'subscribe', id: 's1', reconciliations: ['rec_1'], accounts: ['assets:bank'] })
  await settled()
  t.same(sent, [{ op: 'subscribe', workspace: 'w', visibility: ['assets:*'], windows: ['rec_1'], accounts: ['assets:bank'], atMs: nowMs }])
  t.same(session.written, ['{"type":"subscribed","id":"s1","reconciliations":["rec_1"],"accounts":["acc_1"]}', '{"type":"reconciliation"}', '{"type":"balance"}'], 'the ack names the resolved ids, the values follow')
  t.same([...session.topics].sort(), ['a:acc_1', 'r:rec_1'])
  t.same([...session.joined].sort(), ['a:acc_1', 'r:rec_1'], 'on the app topics')
  update('a:acc_1', 'later')
  t.same(published, [['a:acc_1', 'later']], 'the hub publishes the topic\'s next update')
})

t.test('subscribe without an id: the ack has none', async (t) => {
  const { context, session, replies } = setUp()
  authenticatedAs(session, ['accounts:read'])
  replies.set('subscribe', subscribedReply([['a:acc_1', 'v']], [], ['acc_1']))
  subscribe(context, session, { type: 'subscribe', accounts: ['acc_1'] })
  await settled()
  t.equal(session.written[0], '{"type":"subscribed","reconciliations":[],"accounts":["acc_1"]}')
})

t.test('subscribe refused by the shard: its error envelope with the id, nothing watched', async (t) => {
  const { context, session, replies, update, published } = setUp()
  authenticatedAs(session, ['accounts:read'])
  replies.set('subscribe', { status: 404, headers: [], body: '{"error":{"code":"not_found","message":"Nothing to watch at /accounts/0."}}' })
  subscribe(context, session, { type: 'subscribe', id: 's2', accounts: ['nope'] })
  await settled()
  t.same(session.written, ['{"type":"error","id":"s2","error":{"code":"not_found","message":"Nothing to watch at /accounts/0."}}'])
  t.equal(session.topics.size, 0)
  update('a:nope', 'x')
  t.same(published, [])
})

t.test('a socket closed before the answer: the shard is told to let the topics go, nothing is written', async (t) => {
  const { context, session, sent, replies } = setUp()
  authenticatedAs(session, ['accounts:read'])
  replies.set('subscribe', subscribedReply([['a:acc_1', 'v']], [], ['acc_1']))
  subscribe(context, session, { type: 'subscribe', id: 's3', accounts: ['acc_1'] })
  session.close(1000, 'bye')
  await settled()
  t.same(session.written, [])
  t.same(sent.slice(1), [{ op: 'unwatch', workspace: 'w', topics: ['a:acc_1'] }])
  t.equal(session.topics.size, 0)
})

t.test('unsubscribe: stops the socket\'s own topics (names resolved by the shard), tells the shard, acknowledges', async (t) => {
  const { context, session, sent, replies, update, published } = setUp()
  authenticatedAs(session, ['accounts:read', 'recon:read'])
  replies.set('subscribe', subscribedReply([['r:rec_1', 'r'], ['a:acc_1', 'a']], ['rec_1'], ['acc_1']))
  subscribe(context, session, { type: 'subscribe', reconciliations: ['rec_1'], accounts: ['acc_1'] })
  await settled()
  replies.set('unsubscribe', { status: 200, headers: [], body: '{"accounts":["acc_1","acc_2"]}' })
  unsubscribe(context, session, { type: 'unsubscribe', id: 'u1', reconciliations: ['rec_9'], accounts: ['assets:bank', 'assets:other'] })
  await settled()
  t.same(sent.map((operation) => operation.op), ['subscribe', 'unsubscribe', 'unwatch'], 'one unwatch: only a:acc_1 was the socket\'s')
  t.same(sent[2], { op: 'unwatch', workspace: 'w', topics: ['a:acc_1'] })
  t.same([...session.topics], ['r:rec_1'], 'the window stays watched')
  t.equal(session.written.at(-1), '{"type":"unsubscribed","id":"u1","reconciliations":["rec_9"],"accounts":["acc_1","acc_2"]}')
  update('a:acc_1', 'x')
  t.same(published, [], 'no update of a stopped topic')
})

t.test('unsubscribe refused by the shard: its error with the id, topics kept', async (t) => {
  const { context, session, replies } = setUp()
  authenticatedAs(session, ['accounts:read'])
  session.topics.add('a:acc_1')
  replies.set('unsubscribe', { status: 404, headers: [], body: '{"error":{"code":"not_found","message":"No."}}' })
  unsubscribe(context, session, { type: 'unsubscribe', id: 'u2', accounts: ['acc_1'] })
  await settled()
  t.same(session.written, ['{"type":"error","id":"u2","error":{"code":"not_found","message":"No."}}'])
  t.same([...session.topics], ['a:acc_1'])
})
