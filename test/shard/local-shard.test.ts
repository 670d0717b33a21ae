/**
 * Tests for the in-process shard over a real runtime: replyOf's statuses and headers; each operation answered
 * (commands, reads, refusals, Idempotency-Key lookups, deliveries, subscribe and unwatch, system operations);
 * execute answering a read in the same turn; an unknown workspace; a failed log answering 503 and reported.
 */
import t from 'tap'
import type { Runtime } from '../../src/actor/runtime.ts'
import { reject } from '../../src/errors.ts'
import type { WorkspaceCommand } from '../../src/ledger/commands.ts'
import { LocalShard, replyOf } from '../../src/shard/local-shard.ts'
import { nothingStored, type Operation, type Reply } from '../../src/shard/operation.ts'
import { runtimeNowMs, tempRuntime, workspaceCreate } from '../support/temp-runtime.ts'

type Tap = Parameters<Parameters<typeof t.test>[0]>[0]

const envelope = { at_ms: runtimeNowMs, key_id: 'key_test', visibility: null } as const
const accountCreate = (name: string, idempotency?: { key: string, fingerprint: string }): WorkspaceCommand => ({ ...envelope, type: 'account.create', name, tags: [], idempotency })
const command = (cmd: WorkspaceCommand, keyed = false): Operation => ({ op: 'command', workspace: 'w', command: cmd, keyed })
const lookup = (key: string, fingerprint: string | null): Operation => ({ op: 'idempotency', workspace: 'w', key, keyId: 'key_test', visibility: null, atMs: runtimeNowMs, fingerprint })

async function started(t: Tap, failing?: { now: boolean }): Promise<{ runtime: Runtime, shard: LocalShard, failures: Error[] }> {
  const runtime = tempRuntime(t, failing === undefined ? undefined : { transaction: () => { if (failing.now) throw new Error('disk full') } })
  const failures: Error[] = []
  const shard = new LocalShard(runtime, (error) => failures.push(error))
  t.equal((await shard.send({ op: 'system.command', command: workspaceCreate('w') })).status, 201)
  return { runtime, shard, failures }
}

t.test('replyOf: a rejection as its error envelope, 204 with no body, Replayed and Trueup-Warning headers, keyReplayed kept', async (t) => {
  t.same(replyOf(reject('not_found', 'No such thing.')), { status: 404, headers: [], body: '{"error":{"code":"not_found","message":"No such thing."}}' })
  t.same(replyOf({ ok: true, status: 204, body: { ignored: true } }), { status: 204, headers: [], body: '' })
  t.same(replyOf({ ok: true, status: 200, body: { a: 1 } }), { status: 200, headers: [], body: '{"a":1}' })
  t.same(replyOf({ ok: true, status: 201, body: null, json: '{"b":2}', replayed: true }), { status: 201, headers: [['Replayed', 'true']], body: '{"b":2}' })
  t.same(replyOf({ ok: true, status: 201, body: {}, warning: 'post-close win_1' }), { status: 201, headers: [['Trueup-Warning', 'post-close win_1']], body: '{}' })
  t.same(replyOf({ ok: true, status: 201, body: null, json: '{}', replayed: true, keyReplayed: true }), { status: 201, headers: [['Replayed', 'true']], body: '{}', keyReplayed: true })
  t.notOk('keyReplayed' in replyOf({ ok: true, status: 200, body: {} }), 'no keyReplayed field on a fresh answer')
})

t.test('a command is answered once durable; a read is answered within the turn by execute', async (t) => {
  const { runtime, shard } = await started(t)
  const pending = shard.execute(command(accountCreate('assets:bank')))
  t.ok(pending instanceof Promise, 'a command waits for the log')
  const created = await pending
  t.equal(created.status, 201)
  t.ok(runtime.durableSeq >= 2, 'the log is durable up to the command when it is answered')
  const read = shard.execute({ op: 'query', workspace: 'w', visibility: null, query: { name: 'account.get', params: { account: 'assets:bank' } } })
  t.notOk(read instanceof Promise, 'a read with nothing in flight is the Reply itself')
  t.equal((read as Reply).status, 200)
  t.equal(JSON.parse((read as Reply).body).name, 'assets:bank')
})

t.test('an operation on an unknown workspace is 404 and changes nothing', async (t) => {
  const { runtime, shard } = await started(t)
  const lastSeq = runtime.log.lastSeq
  const reply = await shard.send({ op: 'command', workspace: 'nope', command: accountCreate('assets:bank'), keyed: false })
  t.equal(reply.status, 404)
  t.equal(JSON.parse(reply.body).error.message, 'No workspace nope.')
  t.equal(runtime.log.lastSeq, lastSeq)
})

t.test('refuse and system.refuse answer the rejection as given', async (t) => {
  const { shard } = await started(t)
  const refused = await shard.send({ op: 'refuse', workspace: 'w', rejection: reject('request_invalid', 'Bad shape.') })
  t.equal(refused.status, 400)
  t.equal(JSON.parse(refused.body).error.code, 'request_invalid')
  t.equal((await shard.send({ op: 'system.refuse', rejection: reject('not_found', 'No.') })).status, 404)
})

t.test('an Idempotency-Key: nothing stored, stored (no fingerprint), the stored answer replayed, a conflict', async (t) => {
  const { shard } = await started(t)
  t.same(await shard.send(lookup('k1', 'fp1')), { status: nothingStored, headers: [], body: '' })
  const first = await shard.send(command(accountCreate('assets:bank', { key: 'k1', fingerprint: 'fp1' }), true))
  t.equal(first.status, 201)
  t.same(await shard.send(lookup('k1', null)), { status: 200, headers: [], body: '' }, 'without a fingerprint: only whether something is stored')
  const replayed = await shard.send(lookup('k1', 'fp1'))
  t.same(replayed, { status: 201, headers: [['Replayed', 'true']], body: first.body, keyReplayed: true })
  const conflict = await shard.send(lookup('k1', 'fp2'))
  t.equal(conflict.status, 409)
  t.equal(JSON.parse(conflict.body).error.code, 'idempotency_conflict')
})

t.test('deliveries of an unknown webhook are 404', async (t) => {
  const { shard } = await started(t)
  const reply = await shard.send({ op: 'deliveries', workspace: 'w', webhook: 'wh_none', limit: 10, cursor: null })
  t.equal(reply.status, 404)
})

t.test('subscribe answers the current values and watches them: the next change arrives through onUpdate; unwatch stops it', async (t) => {
  const { shard } = await started(t)
  await shard.send(command(accountCreate('assets:bank')))
  await shard.send(command(accountCreate('income:sales')))
  const updates: [string, string][] = []
  shard.onUpdate((topic, text) => updates.push([topic, text]))
  const subscribed = await shard.send({ op: 'subscribe', workspace: 'w', visibility: null, windows: [], accounts: ['assets:bank'], atMs: runtimeNowMs })
  t.equal(subscribed.status, 200)
  const topic = (JSON.parse(subscribed.body) as { initial: [string, string][] }).initial[0][0]
  const post: WorkspaceCommand = { ...envelope, type: 'entry.post', lines: [{ account: 'assets:bank', amount: 9 }, { account: 'income:sales', amount: -9 }], effective_at_ms: null, description: null, metadata: null }
  await shard.send(command(post))
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(updates.length, 1)
  t.equal(updates[0][0], topic)
  t.equal(JSON.parse(updates[0][1]).data.balance, 9)
  t.same(await shard.send({ op: 'unwatch', workspace: 'w', topics: [topic] }), { status: 204, headers: [], body: '' })
  await shard.send(command(post))
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(updates.length, 1, 'nothing after unwatch')
  const unknown = await shard.send({ op: 'subscribe', workspace: 'w', visibility: null, windows: [], accounts: ['no:such'], atMs: runtimeNowMs })
  t.equal(unknown.status, 404, 'an unknown account: nothing watched')
})

t.test('system operations: a command with extra fields in its answer, a refused one, a query; observers hear accepted ones', async (t) => {
  const { runtime, shard } = await started(t)
  const heard: string[] = []
  shard.onSystemCommand((cmd) => heard.push(cmd.type))
  const created = await shard.send({ op: 'system.command', command: workspaceCreate('w2'), extra: { secret: 's3cret' } })
  t.equal(created.status, 201)
  t.match(JSON.parse(created.body), { id: 'w2', secret: 's3cret' })
  const again = await shard.send({ op: 'system.command', command: workspaceCreate('w2'), extra: { secret: 'x' } })
  t.equal(again.status, 409, 'refused: extra fields are not added')
  t.notOk(again.body.includes('"secret"'))
  t.same(heard, ['workspace.create'], 'only the accepted command is heard')
  t.equal(shard.system, runtime.system)
  const got = await shard.send({ op: 'system.query', query: { name: 'workspace.get', params: { workspace: 'w2' } } })
  t.equal(got.status, 200)
  t.equal(JSON.parse(got.body).id, 'w2')
})

t.test('stats: durable end, nothing pending, each workspace with no queue once durable', async (t) => {
  const { shard } = await started(t)
  await shard.send(command(accountCreate('assets:bank')))
  const stats = await shard.stats()
  t.equal(stats.durableSeq, 2)
  t.equal(stats.pendingRecords, 0)
  t.same([...stats.queueDepths], [['w', 0]])
  t.equal(stats.outboxItems, 0)
})

t.test('a log that cannot be written: 503, and the failure is reported once', async (t) => {
  const failing = { now: false }
  const { shard, failures } = await started(t, failing)
  failing.now = true
  const reply = await shard.send(command(accountCreate('assets:bank')))
  t.equal(reply.status, 503)
  t.equal(JSON.parse(reply.body).error.code, 'unavailable')
  t.equal(failures.length, 1)
  t.match(failures[0].message, /disk full/)
})
