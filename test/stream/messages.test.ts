/**
 * Tests for the WebSocket protocol without a socket (src/stream/messages.ts): before auth only an auth message
 * is read (anything else closes with 4401); auth by message or header; a workspace served elsewhere (cluster
 * mode); after auth each message type, the refusals carrying the id, request messages handed to the lifecycle
 * as an ApiRequest (method, path and query, headers, body), the in-flight bound; the transport's two answers.
 */
import t from 'tap'
import { createKeyCommand, newKeySecret } from '../../src/api/admin-routes.ts'
import type { ApiRequest, Lifecycle } from '../../src/api/lifecycle.ts'
import { createSystemState, executeSystem, limitsDefault, scopes } from '../../src/ledger/system.ts'
import { LiveHub } from '../../src/stream/hub.ts'
import {
  authenticated, closeElsewhere, closeUnauthenticated, firstMessageBytesMax, handleMessage, servedElsewhere, streamTransport,
  type StreamContext, type StreamExchange, type WorkspaceRoute,
} from '../../src/stream/messages.ts'
import { inFlightMax } from '../../src/stream/session.ts'
import { recordingSession, settled, standInShard, type RecordingSession } from '../support/stream-stand-ins.ts'

const bodyBytesMax = 1_000

function setUp(elsewhere?: (workspace: string) => WorkspaceRoute) {
  const stand = standInShard()
  const system = createSystemState()
  executeSystem(system, { type: 'workspace.create', at_ms: 1, id: 'w', time_zone: 'UTC', limits: limitsDefault, tag: 'tag-w' })
  const secret = newKeySecret()
  const keyCommand = createKeyCommand(2, 'w', scopes, null, 'k', secret)
  executeSystem(system, keyCommand)
  Object.assign(stand.shard, { system })
  const runs: [ApiRequest, StreamExchange][] = []
  const lifecycle = { run: (request: ApiRequest, exchange: StreamExchange) => runs.push([request, exchange]) } as unknown as Lifecycle<StreamExchange>
  const context: StreamContext = { shard: stand.shard, hub: new LiveHub(stand.shard, () => {}), lifecycle, clock: () => 5, bodyBytesMax, elsewhere }
  return { ...stand, system, secret, keyId: keyCommand.id, runs, context, session: recordingSession() }
}

const frame = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value))

async function authed(setup: ReturnType<typeof setUp>): Promise<RecordingSession> {
  handleMessage(setup.context, setup.session, frame({ type: 'auth', key: setup.secret }))
  await settled()
  setup.session.written.length = 0
  return setup.session
}

t.test('before auth: anything but a valid auth message closes with 4401 and answers nothing', async (t) => {
  const firsts: [string, Buffer][] = [
    ['not JSON', frame('{nope')], ['an array', frame([1])], ['another type', frame({ type: 'subscribe', accounts: ['a'] })],
    ['a key not a string', frame({ type: 'auth', key: 7 })], ['an unknown key', frame({ type: 'auth', key: 'tu_nope' })],
    ['too big', frame({ type: 'auth', key: 'tu_x', pad: 'x'.repeat(firstMessageBytesMax) })],
  ]
  for (const [what, bytes] of firsts) {
    const { context, session, sent } = setUp()
    handleMessage(context, session, bytes)
    await settled()
    t.same(session.ended, [[closeUnauthenticated, what === 'a key not a string' || what === 'an unknown key' ? 'unauthenticated' : 'authenticate first']], what)
    t.same(session.written, [], `${what}: nothing written`)
    t.equal(session.caller, null)
    t.same(sent, [])
  }
})

t.test('a valid auth message: the caller is set and told its key and workspace', async (t) => {
  const setup = setUp()
  handleMessage(setup.context, setup.session, frame({ type: 'auth', key: setup.secret }))
  await settled()
  t.same(setup.session.written, [`{"type":"authenticated","key":"${setup.keyId}","workspace":"w"}`])
  t.equal(setup.session.caller?.key?.id, setup.keyId)
  t.equal(setup.session.caller?.workspace?.id, 'w')
  t.same(setup.session.ended, [])
})

t.test('authenticated by header: a revoked key, or one whose workspace is gone, is false', async (t) => {
  const setup = setUp()
  t.equal(authenticated(setup.context, recordingSession(), 'Bearer tu_nope'), false)
  setup.system.workspaces.delete('w')
  t.equal(authenticated(setup.context, recordingSession(), `Bearer ${setup.secret}`), false, 'no workspace record')
  const again = setUp()
  executeSystem(again.system, { type: 'key.revoke', at_ms: 3, id: again.keyId })
  t.equal(authenticated(again.context, recordingSession(), `Bearer ${again.secret}`), false, 'revoked')
})

t.test('servedElsewhere: here, another node (its stream URL), or nobody now', async (t) => {
  t.equal(servedElsewhere({}, 'w'), null, 'a single node')
  t.equal(servedElsewhere({ elsewhere: () => ({ kind: 'local' }) }, 'w'), null)
  t.match(servedElsewhere({ elsewhere: () => ({ kind: 'unavailable', reason: 'A takeover is under way.' }) }, 'w'), { code: 'unavailable', message: 'A takeover is under way. Connect again shortly.' })
  t.match(servedElsewhere({ elsewhere: () => ({ kind: 'forward', url: 'http://127.0.0.1:9000//' }) }, 'w'), {
    code: 'unavailable', message: 'Workspace w is served by another node: connect to http://127.0.0.1:9000/v2/stream.', details: [{ path: '/owner_url', message: 'http://127.0.0.1:9000/v2/stream' }],
  })
})

t.test('a workspace served by another node: at auth, and on a later message, an error then a close with 4503', async (t) => {
  let route: WorkspaceRoute = { kind: 'forward', url: 'http://127.0.0.1:9000' }
  const setup = setUp(() => route)
  handleMessage(setup.context, setup.session, frame({ type: 'auth', key: setup.secret }))
  await settled()
  t.equal(setup.session.caller, null, 'not authenticated here')
  t.match(JSON.parse(setup.session.written[0]), { type: 'error', error: { code: 'unavailable' } })
  t.same(setup.session.ended, [[closeElsewhere, 'workspace served by another node']])
  route = { kind: 'local' }
  const later = setUp(() => route)
  const session = await authed(later)
  route = { kind: 'unavailable', reason: 'Moving.' }
  handleMessage(later.context, session, frame({ type: 'request', id: 'r1', method: 'GET', path: '/v2/accounts' }))
  await settled()
  t.same(later.runs, [], 'the request is not run')
  t.match(JSON.parse(session.written[0]), { type: 'error', error: { code: 'unavailable', message: 'Moving. Connect again shortly.' } })
  t.same(session.ended, [[closeElsewhere, 'workspace served by another node']])
})

t.test('after auth: bad JSON, a non-object, auth again, an unknown type: error messages, the socket open', async (t) => {
  const setup = setUp()
  const session = await authed(setup)
  handleMessage(setup.context, session, frame('{nope'))
  handleMessage(setup.context, session, frame('"text"'))
  handleMessage(setup.context, session, frame({ type: 'auth', id: 'a1', key: setup.secret }))
  handleMessage(setup.context, session, frame({ type: 'x'.repeat(200), id: 'u1' }))
  await settled()
  const answers = session.written.map((text) => JSON.parse(text))
  t.match(answers[0], { type: 'error', error: { code: 'json_invalid' } })
  t.notOk('id' in answers[0])
  t.match(answers[1], { type: 'error', error: { code: 'request_invalid', details: [{ path: '/type' }] } })
  t.match(answers[2], { type: 'error', id: 'a1', error: { code: 'request_invalid', message: 'This socket is authenticated already.' } })
  t.match(answers[3], { type: 'error', id: 'u1', error: { code: 'request_invalid' } })
  t.ok(answers[3].error.message.length < 120, 'the unknown type is cut short in the message')
  t.same(session.ended, [])
})

t.test('subscribe and unsubscribe messages reach the shard', async (t) => {
  const setup = setUp()
  const session = await authed(setup)
  setup.replies.set('subscribe', { status: 200, headers: [], body: '{"reconciliations":[],"accounts":["acc_1"],"initial":[]}' })
  setup.replies.set('unsubscribe', { status: 200, headers: [], body: '{"accounts":["acc_1"]}' })
  handleMessage(setup.context, session, frame({ type: 'subscribe', accounts: ['assets:bank'] }))
  handleMessage(setup.context, session, frame({ type: 'unsubscribe', accounts: ['assets:bank'] }))
  await settled()
  t.same(setup.sent.map((operation) => operation.op), ['subscribe', 'unsubscribe'])
})

t.test('a request message becomes an ApiRequest for the lifecycle', async (t) => {
  const setup = setUp()
  const session = await authed(setup)
  const json = frame({ type: 'request', id: 'r1', method: 'post', path: '/v2/entries?dry=1&x=2', headers: { 'Idempotency-Key': 'k1', Authorization: 'Bearer other' }, body: { a: 1 } })
  handleMessage(setup.context, session, json)
  handleMessage(setup.context, session, frame({ type: 'request', id: 'r2', method: 'GET', path: '/v2/accounts' }))
  handleMessage(setup.context, session, frame({ type: 'request', id: 'r3', method: 'POST', path: '/v2/statements', headers: { 'Content-Type': 'text/csv' }, body: 'date,amount\n' }))
  t.equal(session.inFlight, 3)
  const [[first, exchange], [second], [third]] = setup.runs
  t.equal(first.method, 'POST')
  t.equal(first.path, '/v2/entries')
  t.equal(first.query, 'dry=1&x=2')
  t.same([...first.headers], [['idempotency-key', 'k1']], 'lower case; an Authorization header means nothing here')
  t.same(first.body, { value: { a: 1 }, byteLength: json.length }, 'a frame within the smallest limit: its length stands for the body')
  t.equal(first.caller?.key?.id, setup.keyId)
  t.same(exchange, { session, id: 'r1' })
  t.equal(second.query, '')
  t.equal(second.body, undefined, 'no body field: none')
  t.equal(second.headers.size, 0)
  t.equal(second.caller, first.caller, 'the same caller object while the workspace record is unchanged')
  t.same(third.body, Buffer.from('date,amount\n'), 'a text body of another media type as its bytes')
  setup.system.workspaces.set('w', { ...setup.system.workspaces.get('w')!, tag: 'changed' })
  handleMessage(setup.context, session, frame({ type: 'request', id: 'r4', method: 'GET', path: '/v2/accounts' }))
  t.not(setup.runs[3][0].caller, first.caller, 'a new caller once the record changed')
  t.equal(setup.runs[3][0].caller?.workspace?.tag, 'changed')
})

t.test('a large request frame: the body measured itself', async (t) => {
  const setup = setUp()
  const session = await authed(setup)
  const body = { text: 'y'.repeat(bodyBytesMax) }
  handleMessage(setup.context, session, frame({ type: 'request', id: 'big', method: 'POST', path: '/v2/entries', body }))
  t.same(setup.runs[0][0].body, { value: body, byteLength: Buffer.byteLength(JSON.stringify(body)) })
})

t.test('an invalid request message is an error with its id; past the in-flight bound a 429 response', async (t) => {
  const setup = setUp()
  const session = await authed(setup)
  handleMessage(setup.context, session, frame({ type: 'request', id: 'bad', path: '/v2/accounts' }))
  session.inFlight = inFlightMax
  handleMessage(setup.context, session, frame({ type: 'request', id: 'over', method: 'GET', path: '/v2/accounts' }))
  await settled()
  t.same(setup.runs, [])
  t.match(JSON.parse(session.written[0]), { type: 'error', id: 'bad', error: { code: 'request_invalid' } })
  t.match(JSON.parse(session.written[1]), { type: 'response', id: 'over', status: 429, headers: { 'retry-after': '1' }, body: { error: { code: 'rate_limited' } } })
  t.equal(session.inFlight, inFlightMax, 'the refused request is not counted')
})

t.test('the transport: respond writes a response and frees the slot; an export is refused 400 and its stream closed', async (t) => {
  const session = recordingSession()
  session.inFlight = 2
  streamTransport.respond({ session, id: 'r1' }, 201, '{"ok":true}', [['Replayed', 'true']])
  let closed = 0
  streamTransport.stream!({ session, id: 'r2' }, 200, [], () => {}, () => closed++)
  await settled()
  t.equal(session.inFlight, 0)
  t.equal(closed, 1)
  t.same(JSON.parse(session.written[0]), { type: 'response', id: 'r1', status: 201, headers: { replayed: 'true' }, body: { ok: true } })
  t.match(JSON.parse(session.written[1]), { type: 'response', id: 'r2', status: 400, body: { error: { code: 'request_invalid' } } })
})
