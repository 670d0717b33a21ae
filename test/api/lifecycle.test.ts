/** src/api/lifecycle.ts with a transport of its own (as a WebSocket one would be): neutral input, (status, body, headers) out, stages skipped by name. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { Runtime } from '../../src/actor/runtime.ts'
import { createKeyCommand, newKeySecret } from '../../src/api/admin-routes.ts'
import { Lifecycle, stageNames, type ApiRequest, type Flow, type Headers, type RateBudgets, type Transport } from '../../src/api/lifecycle.ts'
import { limitQuery, textQuery, timestampQuery } from '../../src/api/query.ts'
import { v2Route, type V2Route } from '../../src/api/route.ts'
import { validator } from '../../src/api/schemas/validate.ts'
import { accountCreate } from '../../src/api/schemas/ledger.ts'
import { v2Surface } from '../../src/api/surfaces.ts'
import { limitsDefault, scopes } from '../../src/ledger/system.ts'
import { CommandLog } from '../../src/log/command-log.ts'
import { LocalShard } from '../../src/shard/local-shard.ts'
import type { Operation, Reply, Shard } from '../../src/shard/operation.ts'

interface Answer { status: number; body: any; headers: Headers }

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-lifecycle-unit-'))
const log = new CommandLog({ path: path.join(dir, 'log'), groupCommitRecordsMax: 64, pendingRecordsMax: 1024 })
const runtime = new Runtime(log, 1_000_000)
runtime.replay(() => Date.now())
const shard = new LocalShard(runtime, (error) => { throw error })
t.teardown(async () => {
  await log.close()
  fs.rmSync(dir, { recursive: true, force: true })
})
runtime.submitSystem({ type: 'workspace.create', at_ms: Date.now(), id: 'w', time_zone: 'UTC', limits: limitsDefault, tag: 'unittag' })
const secret = newKeySecret()
runtime.submitSystem(createKeyCommand(Date.now(), 'w', scopes, null, 'k', secret))

/** A transport whose bodies arrive later, as a socket's would; answers are collected per request. */
const pendingBodies: (() => void)[] = []
const transport: Transport<(answer: Answer) => void> = {
  respond: (done, status, body, headers) => done({ status, body: body === '' ? null : JSON.parse(body), headers }),
  readBody: (_done, _bytesMax, deliver) => { pendingBodies.push(() => deliver(Buffer.from(bodies.shift()!))) },
}
const bodies: string[] = []
const options = { ...v2Surface(shard), clock: () => Date.now(), bodyBytesMax: 1 << 20, importBodyBytesMax: 1 << 24 }

function send(lifecycle: Lifecycle<(answer: Answer) => void>, request: Omit<ApiRequest, 'headers' | 'query'> & { headers?: Record<string, string> }): Promise<Answer> {
  const headers = new Map(Object.entries({ authorization: `Bearer ${secret}`, ...request.headers }))
  return new Promise((resolve) => lifecycle.run({ query: '', ...request, headers }, resolve))
}

t.test('a streamed body: the stages before `body` run at once, the rest when it is complete', async (t) => {
  const lifecycle = new Lifecycle({ ...options, skip: [] }, transport)
  t.same(lifecycle.stageNames, stageNames, 'every stage')
  bodies.push(JSON.stringify({ name: 'assets:bank' }))
  const answered = send(lifecycle, { method: 'POST', path: '/v2/accounts' })
  t.equal(pendingBodies.length, 1, 'waiting for the body')
  pendingBodies.shift()!()
  const created = await answered
  t.equal(created.status, 201)
  t.equal(created.body.name, 'assets:bank')
  const balance = await send(lifecycle, { method: 'GET', path: '/v2/accounts/assets%3Abank/balance' })
  t.equal(balance.status, 200)
  t.equal(balance.body.balance, 0)
  t.equal((await send(lifecycle, { method: 'GET', path: '/v2/nowhere' })).status, 404)
  t.equal((await send(lifecycle, { method: 'GET', path: '/v2/accounts', headers: { authorization: 'Bearer nope' } })).status, 401)
})

t.test('a body given as a value, rate buckets, and stages skipped by name', async (t) => {
  let taken = 0
  const bucket = { limitPerMinute: 60, remaining: () => 7, tryTake: () => { taken++; return true }, retryAfterSeconds: () => 1, giveBack: () => {} }
  const buckets: RateBudgets = { of: () => ({ reads: bucket, writes: bucket }) }
  const rated = new Lifecycle({ ...options, skip: [], buckets }, transport)
  const answer = await send(rated, { method: 'POST', path: '/v2/accounts', body: { value: { name: 'assets:cash' } } })
  t.equal(answer.status, 201)
  t.same(answer.headers, [['X-RateLimit-Limit', '60'], ['X-RateLimit-Remaining', '7']], 'the bucket\'s headers')
  t.equal(taken, 1, 'one token')
  const unrated = new Lifecycle({ ...options, skip: ['rate'], buckets }, transport)
  t.notOk(unrated.stageNames.includes('rate'))
  await send(unrated, { method: 'GET', path: '/v2/accounts' })
  t.equal(taken, 1, 'a skipped rate stage takes nothing')
  const trusted = new Lifecycle({ ...options, skip: ['auth', 'scope', 'recheck', 'rate'] }, transport)
  const key = runtime.system.keys.values().next().value!
  const listed = await send(trusted, { method: 'GET', path: '/v2/accounts', headers: { authorization: 'none' }, caller: { key: { ...key, scopes: [] }, workspace: runtime.system.workspaces.get('w')! } })
  t.equal(listed.status, 200, 'no auth and no scope check: the caller given is trusted')
  t.equal(listed.body.data.length, 2)
})

t.test('a caller handed over by the transport (a WebSocket): auth takes it without a header and refuses it once revoked; a value body is held to the limit by its byteLength', async (t) => {
  const handedSecret = newKeySecret()
  runtime.submitSystem(createKeyCommand(Date.now(), 'w', scopes, null, 'handed', handedSecret))
  const key = [...runtime.system.keysByHash.values()].find((each) => each.name === 'handed')!
  const caller = { key, workspace: runtime.system.workspaces.get('w')! }
  const lifecycle = new Lifecycle({ ...options, skip: [] }, transport)
  const run = (request: Omit<ApiRequest, 'headers' | 'query' | 'caller'>) => new Promise<Answer>((resolve) => lifecycle.run({ query: '', headers: new Map(), caller, ...request }, resolve))
  t.equal((await run({ method: 'GET', path: '/v2/accounts' })).status, 200, 'no Authorization header needed')
  const body = { name: 'assets:handed' }
  t.equal((await run({ method: 'POST', path: '/v2/accounts', body: { value: body, byteLength: (1 << 20) + 1 } })).status, 413, 'over the limit by its byteLength')
  t.equal((await run({ method: 'POST', path: '/v2/accounts', body: { value: body, byteLength: 30 } })).status, 201, 'within it')
  runtime.submitSystem({ type: 'key.revoke', at_ms: Date.now(), id: key.id })
  const refused = await run({ method: 'GET', path: '/v2/accounts' })
  t.equal(refused.status, 401, 'the key revoked since the socket opened')
})

t.test('once the shard has the operation, the flow lets go of the body and the command while the answer waits for the log', async (t) => {
  const seen: { flow?: Flow; built?: unknown; operation?: Operation; release?: () => void } = {}
  // A shard whose answers wait until the test lets them go, as they wait for the log's fsync.
  const holding: Shard = {
    get system() { return shard.system },
    onUpdate: (listener) => shard.onUpdate(listener),
    onSystemCommand: (listener) => shard.onSystemCommand(listener),
    stats: () => shard.stats(),
    send: (operation) => {
      seen.operation = operation
      return new Promise<Reply>((resolve) => { seen.release = () => void shard.send(operation).then(resolve) })
    },
  }
  const surface = v2Surface(holding)
  const handler = {
    ...surface.handler,
    execute: (given: Flow, built: unknown) => {
      seen.flow = given
      seen.built = built
      return surface.handler.execute(given, built)
    },
  }
  const lifecycle = new Lifecycle({ ...options, handler, skip: [] }, transport)
  const answered = send(lifecycle, { method: 'POST', path: '/v2/accounts', body: { value: { name: 'assets:held' } } })
  const { flow, built, operation, release } = seen
  t.ok(built !== undefined && operation?.op === 'command', 'the shard got the command as an operation')
  t.equal(operation?.op === 'command' ? operation.command.type : null, 'account.create')
  t.ok(release !== undefined, 'the answer waits for the log')
  t.equal(flow?.body, undefined, 'the validated body let go')
  t.equal(flow?.built, undefined, 'the command let go')
  t.equal(flow?.request.body, undefined, 'the request\'s body let go')
  t.equal(flow?.bytes, undefined, 'no bytes kept')
  release!()
  const answer = await answered
  t.equal(answer.status, 201, 'answered once durable, as before')
  t.equal(answer.body.name, 'assets:held')
})

const accountCreateBody = validator(accountCreate)

t.test('query parameters are read from the route\'s declarations: the handler gets their values, a bad one answers before it is called', async (t) => {
  const seen: unknown[] = []
  const probe: V2Route[] = [
    v2Route({
      method: 'GET', pattern: '/v2/probe', scope: null, summary: 'A route declaring its query',
      query: [limitQuery, textQuery('account', 'an account'), timestampQuery('from', 'an instant')],
      handle: ({ query }) => {
        seen.push(query)
        const limit: number = query.limit
        const account: string | null = query.account
        const from: number | null = query.from
        return { read: { name: 'account.list', params: { limit: from === null && account === null ? limit : 1, cursor: null } } }
      },
    }),
    v2Route({
      method: 'POST', pattern: '/v2/probe', scope: null, summary: 'A body and a query', body: { validate: accountCreateBody },
      query: [textQuery('account', 'an account')],
      handle: ({ query, body }) => {
        seen.push(query)
        return { read: { name: 'account.get', params: { account: query.account ?? body.name } } }
      },
    }),
  ]
  const lifecycle = new Lifecycle({ ...options, routes: probe, skip: [] }, transport)
  const get = (query: string, headers: Record<string, string> = {}) => new Promise<Answer>((resolve) => lifecycle.run({ method: 'GET', path: '/v2/probe', query, headers: new Map(Object.entries({ authorization: `Bearer ${secret}`, ...headers })) }, resolve))
  t.equal((await get('limit=5&account=a&from=2025-01-01T00:00:00Z&ignored=%25x')).status, 200, 'a parameter the route does not declare is ignored')
  t.same(seen.shift(), { limit: 5, account: 'a', from: Date.UTC(2025, 0, 1) }, 'the parsed, typed values')
  t.equal((await get('')).status, 200)
  t.same(seen.shift(), { limit: 100, account: null, from: null }, 'absent: their defaults')
  const bad = await get('from=yesterday&limit=0')
  t.equal(bad.status, 400)
  t.same(bad.body.error, { code: 'request_invalid', message: 'Query parameter limit: must be an integer from 1 to 1000.', details: [{ path: '/limit', message: 'must be an integer from 1 to 1000' }] }, 'the first bad one in declaration order, as before')
  const fromBad = await get('from=yesterday')
  t.same(fromBad.body.error.details, [{ path: '/from', message: 'must be an RFC 3339 timestamp' }])
  const encoding = await get('other=%FC')
  t.equal(encoding.status, 400, 'bytes that are not UTF-8, in any parameter')
  t.same(encoding.body.error.details.map((detail: { path: string }) => detail.path), ['/other'])
  t.equal(seen.length, 0, 'the handler was not called for a bad query')
  const post = (query: string, body: string, headers: Record<string, string> = {}) => new Promise<Answer>((resolve) => lifecycle.run({ method: 'POST', path: '/v2/probe', query, headers: new Map(Object.entries({ authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...headers })), body: Buffer.from(body) }, resolve))
  t.equal((await post('account=', '{')).body.error.code, 'json_invalid', 'JSON answers before the query')
  t.same((await post('account=', '{"name": 1}')).body.error.details, [{ path: '/account', message: 'must be 1 to 256 characters' }], 'the query before the body\'s schema')
  t.same((await post('account=', '{"name": "x"}', { 'idempotency-key': '' })).body.error.details, [{ path: '/account', message: 'must be 1 to 256 characters' }], 'and before the Idempotency-Key\'s syntax')
  t.equal(seen.length, 0, 'the handler was not called')
})

t.test('with no write in flight, a read and the replay of a stored Idempotency-Key are answered within the request\'s own turn; a write waits for the log', async (t) => {
  const lifecycle = new Lifecycle({ ...options, skip: [] }, transport)
  const keyed = { method: 'POST', path: '/v2/accounts', headers: { 'idempotency-key': 'same-turn-1' }, body: { value: { name: 'assets:same-turn' } } }
  t.equal((await send(lifecycle, keyed)).status, 201, 'the keyed write, once durable')
  // Run by hand: what is answered before run() returns was answered in the request's turn (over HTTP: in uWS's handler, with no abort watch).
  const runNow = (request: Omit<ApiRequest, 'headers' | 'query'> & { headers?: Record<string, string> }): Answer[] => {
    const answers: Answer[] = []
    const headers = new Map(Object.entries({ authorization: `Bearer ${secret}`, ...request.headers }))
    lifecycle.run({ query: '', ...request, headers }, (answer) => answers.push(answer))
    return answers
  }
  const balance = runNow({ method: 'GET', path: '/v2/accounts/assets%3Asame-turn/balance' })
  t.equal(balance.length, 1, 'the read answered at once')
  t.equal(balance[0]?.status, 200)
  t.equal(balance[0]?.body.balance, 0)
  const replay = runNow(keyed)
  t.equal(replay.length, 1, 'the replay answered at once')
  t.equal(replay[0]?.status, 201)
  t.same(replay[0]?.headers.find(([name]) => name === 'Replayed'), ['Replayed', 'true'], 'marked as a replay')
  t.equal(replay[0]?.body.name, 'assets:same-turn', 'the stored answer')
  const conflict = runNow({ ...keyed, body: { value: { name: 'assets:other' } } })
  t.equal(conflict.length, 1, 'a conflict answered at once')
  t.equal(conflict[0]?.status, 409)
  const write = runNow({ method: 'POST', path: '/v2/accounts', body: { value: { name: 'assets:later' } } })
  t.equal(write.length, 0, 'a write is not answered before its record is durable')
  await new Promise<void>((resolve) => log.afterDurable(log.lastSeq, () => resolve()))
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(write.length, 1, 'answered once durable')
  t.equal(write[0]?.status, 201)
})
