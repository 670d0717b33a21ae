/**
 * A statement file is read by the lifecycle's `parse` stage (in the worker thread), so a route's handler
 * receives its statements, never an unread file; the file's errors keep their place in docs/API.md's order.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { Runtime } from '../../src/actor/runtime.ts'
import { createKeyCommand, newKeySecret } from '../../src/api/admin-routes.ts'
import { Lifecycle, type ApiRequest, type Flow, type Headers, type Transport } from '../../src/api/lifecycle.ts'
import { filesReadInWorker } from '../../src/api/statement-worker-pool.ts'
import { v2Surface } from '../../src/api/surfaces.ts'
import { limitsDefault, scopes } from '../../src/ledger/system.ts'
import { CommandLog } from '../../src/log/command-log.ts'
import { LocalShard } from '../../src/shard/local-shard.ts'
import type { Statement } from '../../src/statements/types.ts'
import { writeMt940 } from '../support/statement-writers.ts'

interface Answer { status: number; body: any; headers: Headers }

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-lifecycle-statements-'))
const log = new CommandLog({ path: path.join(dir, 'log'), groupCommitRecordsMax: 64, pendingRecordsMax: 1024 })
const runtime = new Runtime(log, 1_000_000)
runtime.replay(() => Date.now())
const shard = new LocalShard(runtime, (error) => { throw error })
t.teardown(async () => {
  await log.close()
  fs.rmSync(dir, { recursive: true, force: true })
})
runtime.submitSystem({ type: 'workspace.create', at_ms: Date.now(), id: 'w', time_zone: 'UTC', limits: limitsDefault, tag: 'stmttag' })
const secret = newKeySecret()
runtime.submitSystem(createKeyCommand(Date.now(), 'w', scopes, null, 'k', secret))

const transport: Transport<(answer: Answer) => void> = {
  respond: (done, status, body, headers) => done({ status, body: body === '' ? null : JSON.parse(body), headers }),
}

/** What the handler was given, and how many files the worker had read by then. */
const built: { body: unknown; filesRead: number }[] = []
const surface = v2Surface(shard)
const handler = {
  ...surface.handler,
  build: (flow: Flow) => {
    built.push({ body: flow.body, filesRead: filesReadInWorker() })
    return surface.handler.build(flow)
  },
}
const lifecycle = new Lifecycle({ ...surface, handler, clock: () => Date.now(), bodyBytesMax: 1 << 20, importBodyBytesMax: 1 << 24, skip: [] }, transport)

function send(request: Omit<ApiRequest, 'headers' | 'query'> & { query?: string; headers?: Record<string, string> }): Promise<Answer> {
  const headers = new Map(Object.entries({ authorization: `Bearer ${secret}`, ...request.headers }))
  return new Promise((resolve) => lifecycle.run({ query: '', ...request, headers }, resolve))
}

function statement(closing: number): Statement {
  return {
    format: 'mt940', statement_ref: 'NOV/1', account: 'DE-LIFECYCLE-1', currency: 'EUR',
    opening: { amount: 1000, date: '2026-11-01' }, closing: { amount: closing, date: '2026-11-03' }, period: { from: '2026-11-02', to: '2026-11-03' },
    entries: [{ amount: 250, mark: 'credit', reversal: false, date: '2026-11-02', value_date: '2026-11-02', reference: 'R1', description: 'in', counterparty: null }],
  }
}

const balanced = Buffer.from(writeMt940([statement(1250)]))
const unbalanced = Buffer.from(writeMt940([statement(1300)]))
const mt940 = { 'content-type': 'application/x-mt940' }

t.test('the handler receives the statements, read before it is called', async (t) => {
  built.length = 0
  const readBefore = filesReadInWorker()
  const answer = await send({ method: 'POST', path: '/v2/statements', body: balanced, headers: mt940 })
  t.equal(answer.status, 404, 'no account has the identifier: the operation\'s own rule answers')
  t.equal(answer.body.error.code, 'account_unknown')
  t.equal(built.length, 1)
  const body = built[0].body as { statements?: readonly Statement[] }
  t.equal(built[0].filesRead, readBefore + 1, 'read (in the worker) by the time the handler runs')
  t.ok(Array.isArray(body.statements), 'statements, not an unread file')
  t.equal(body.statements?.[0]?.account, 'DE-LIFECYCLE-1')
  t.equal(body.statements?.[0]?.entries.length, 1)
  t.equal((body as { bytes?: unknown }).bytes, undefined, 'no bytes handed on')
})

t.test('the lines route: a statement file\'s statements too, JSON lines as before', async (t) => {
  built.length = 0
  const file = await send({ method: 'POST', path: '/v2/reconciliations/rec_none/lines', query: 'format=mt940', body: balanced, headers: { 'content-type': 'text/plain' } })
  t.equal(file.status, 404)
  t.ok(Array.isArray((built[0].body as { statements?: unknown }).statements), 'statements')
  const json = await send({ method: 'POST', path: '/v2/reconciliations/rec_none/lines', body: Buffer.from(JSON.stringify({ lines: [{ amount: 5, date: '2026-11-02' }] })) })
  t.equal(json.status, 404)
  t.same((built[1].body as { lines?: unknown }).lines, [{ amount: 5, date: '2026-11-02' }], 'JSON lines')
})

t.test('a file that cannot be read or does not balance answers at the parse stage: the handler is not called', async (t) => {
  built.length = 0
  const garbage = await send({ method: 'POST', path: '/v2/statements', body: Buffer.from('hello'), headers: { 'content-type': 'text/plain' } })
  t.equal(garbage.status, 400)
  t.equal(garbage.body.error.code, 'statement_invalid')
  t.same(garbage.body.error.details, [{ path: 'line 1', message: 'format not recognised' }])
  const named = await send({ method: 'POST', path: '/v2/statements', query: 'format=bai2', body: balanced, headers: mt940 })
  t.equal(named.body.error.code, 'statement_invalid', 'read as ?format= names it, over Content-Type')
  t.match(named.body.error.message, /BAI2/)
  const off = await send({ method: 'POST', path: '/v2/statements', body: unbalanced, headers: mt940 })
  t.equal(off.status, 422)
  t.equal(off.body.error.code, 'statement_unbalanced')
  t.equal(built.length, 0, 'no handler called')
})

t.test('the order of errors: the query\'s rules, then a malformed Idempotency-Key, then the file\'s own', async (t) => {
  const readBefore = filesReadInWorker()
  const format = await send({ method: 'POST', path: '/v2/statements', query: 'format=camt054', body: Buffer.from('hello') })
  t.equal(format.status, 400)
  t.equal(format.body.error.details[0].path, '/format')
  const label = await send({ method: 'POST', path: '/v2/statements', query: 'label=a%07b', body: Buffer.from('hello') })
  t.equal(label.status, 400)
  t.equal(label.body.error.details[0].path, '/label')
  const key = await send({ method: 'POST', path: '/v2/statements', body: Buffer.from('hello'), headers: { 'idempotency-key': 'bad\u0001key' } })
  t.equal(key.status, 400)
  t.equal(key.body.error.code, 'request_invalid')
  t.equal(key.body.error.details[0].path, '/headers/idempotency-key')
  t.equal(filesReadInWorker(), readBefore, 'neither file was read')
})

t.test('a JSON value cannot pass for a statement file', async (t) => {
  built.length = 0
  const forged = await send({ method: 'POST', path: '/v2/statements', body: { value: { kind: 'statement-file', bytes: [1, 2], contentType: null, format: 'mt940', label: null } } })
  t.equal(forged.status, 400)
  t.equal(forged.body.error.code, 'request_invalid')
  t.equal(built.length, 0)
})
