/**
 * A data dir of the single log converted to shards at start (src/shard/convert.ts), real processes: a SHARDS=1
 * service writes a varied workload (entries, a batch, a reversal, Idempotency-Keys, matching rules, windows with
 * statement lines, matches, a sealed close, webhooks delivered), then SHARDS=4 starts on it: every read answers
 * as before, idempotent repeats answer the stored answer, the seal verifies, writes go on, and a second start
 * converts nothing. A kill -9 at each step of the switch leaves a data dir that starts and converts.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { convertKillAtEnv } from '../../src/shard/convert.ts'
import { shardOf } from '../../src/shard/placement.ts'
import { listAll } from '../support/api.ts'
import { killHard, repositoryRoot, runToExit, startProcess, type RunningProcess } from '../support/process.ts'
import { addLinesOk, matchOk, openWindowOk, patchWindow, readWindow, unmatch } from '../support/recon.ts'
import { call } from '../support/service.ts'
import { startReceiver } from '../support/webhook-receiver.ts'

t.setTimeout(1_500_000)

const adminToken = 'convert-admin'
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-convert-'))
const live: RunningProcess[] = []
const receiver = await startReceiver()
t.teardown(async () => {
  for (const running of live) await killHard(running)
  await receiver.close()
  fs.rmSync(tmpRoot, { recursive: true, force: true })
})

async function start(dataDir: string, shards: number, env: Record<string, string> = {}): Promise<RunningProcess> {
  const running = await startProcess({ dataDir, adminToken, env: { SHARDS: String(shards), ...env }, startTimeoutMs: 120_000 })
  live.push(running)
  return running
}

const workspaceIds = ['conv-a', 'conv-b', 'conv-c', 'conv-d', 'conv-e', 'conv-f']
const scopes = ['accounts:read', 'accounts:write', 'entries:read', 'entries:write', 'recon:read', 'recon:write', 'hooks:read', 'hooks:write']
const limits = { writes_per_minute: 10_000_000, reads_per_minute: 10_000_000 }
const sale = (amount: number, at: string) => ({ lines: [{ account: 'assets:bank', amount }, { account: 'income:sales', amount: -amount }], effective_at: at })

interface Written { readonly key: string; readonly windows: string[]; readonly closed: string; readonly hook: string; readonly keyed: { readonly route: string; readonly body: unknown; readonly key: string; readonly answer: string }[] }

async function ok(reply: Promise<{ status: number; text: string; body: any }>, status: number, what: string): Promise<any> {
  const answer = await reply
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${answer.text}`)
  return answer.body
}

/** Idempotent POSTs: their answers are kept to be asked again after the conversion. */
async function keyedPost(baseUrl: string, key: string, route: string, body: unknown, idempotencyKey: string): Promise<Written['keyed'][number]> {
  const reply = await call(baseUrl, 'POST', route, { key, body, headers: { 'idempotency-key': idempotencyKey } })
  if (reply.status !== 201) throw new Error(`${route}: ${reply.status} ${reply.text}`)
  return { route, body, key: idempotencyKey, answer: reply.text }
}

/** One workspace's workload; index varies amounts so workspaces differ. */
async function writeWorkspace(baseUrl: string, id: string, index: number): Promise<Written> {
  await ok(call(baseUrl, 'POST', '/admin/workspaces', { key: adminToken, body: { id, timezone: index % 2 === 0 ? 'UTC' : 'Europe/Berlin', limits } }), 201, 'workspace')
  const key = (await ok(call(baseUrl, 'POST', '/admin/keys', { key: adminToken, body: { workspace: id, scopes } }), 201, 'key')).secret as string
  await ok(call(baseUrl, 'POST', '/admin/keys', { key: adminToken, body: { workspace: id, scopes: ['entries:read'] } }), 201, 'second key')
  for (const name of ['assets:bank', 'income:sales', 'assets:cash']) await ok(call(baseUrl, 'POST', '/v2/accounts', { key, body: { name } }), 201, name)
  const hook = (await ok(call(baseUrl, 'POST', '/v2/webhooks', { key, body: { url: receiver.url, events: ['entry.posted', 'reconciliation.closed'] } }), 201, 'webhook')).id as string
  await ok(call(baseUrl, 'POST', '/v2/matching-rules', { key, body: { name: 'r', priority: 1, action: 'auto_match', strategy: 'one_to_one', conditions: { amount: 'exact' } } }), 201, 'rule')
  const entries: any[] = []
  for (let n = 1; n <= 12; n++) entries.push(await ok(call(baseUrl, 'POST', '/v2/entries', { key, body: sale(100 * n + index, `2026-03-${String(n + 1).padStart(2, '0')}T09:00:00Z`) }), 201, 'entry'))
  const keyed = [await keyedPost(baseUrl, key, '/v2/entries', sale(7 + index, '2026-03-20T10:00:00Z'), `k-${id}-1`)]
  keyed.push(await keyedPost(baseUrl, key, '/v2/entries/batch', { entries: [sale(1, '2026-03-21T10:00:00Z'), sale(2, '2026-03-22T10:00:00Z')] }, `k-${id}-batch`))
  await ok(call(baseUrl, 'POST', `/v2/entries/${entries[11].id}/reverse`, { key, body: { description: 'undo' } }), 201, 'reverse')
  const claimed = entries.slice(0, 3).reduce((sum, entry) => sum + entry.lines[0].amount, 0)
  const window = await openWindowOk(baseUrl, key, { label: `March ${id}`, accounts: ['assets:bank'], from: '2026-03-01', to: '2026-03-04', claimed_movement: claimed, statement_ref: `st-${index}` })
  await addLinesOk(baseUrl, key, window.id, entries.slice(0, 3).map((entry, n) => ({ amount: entry.lines[0].amount, date: `2026-03-0${n + 2}`, reference: `R${n}`, description: `line ${n}` })))
  const undone = await matchOk(baseUrl, key, window.id, { statement_lines: ['l1'], entries: [entries[0].id], strategy: 'manual' })
  await ok(unmatch(baseUrl, key, window.id, undone.id), 200, 'unmatch')
  for (let n = 0; n < 3; n++) await matchOk(baseUrl, key, window.id, { statement_lines: [`l${n + 1}`], entries: [entries[n].id], strategy: 'amount_and_date' })
  await ok(patchWindow(baseUrl, key, window.id, { state: 'closed' }), 200, 'close')
  const open = await openWindowOk(baseUrl, key, { label: 'open', accounts: ['assets:bank'], from: '2026-03-05', to: '2026-03-31', claimed_movement: 1 })
  await addLinesOk(baseUrl, key, open.id, [{ amount: 500 + index, date: '2026-03-06', reference: null, description: 'pending' }])
  keyed.push(await keyedPost(baseUrl, key, `/v2/reconciliations/${open.id}/lines`, { lines: [{ amount: 3, date: '2026-03-07' }] }, `k-${id}-lines`))
  return { key, windows: [window.id, open.id], closed: window.id, hook, keyed }
}

/** The fields that say when a read was answered (a balance's `at` now, an export's `exported_at`): the rest is the state. */
const answeredAtFields = new Set(['at', 'exported_at'])

function withoutAnsweredAt(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutAnsweredAt)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).filter(([name]) => !answeredAtFields.has(name)).map(([name, field]) => [name, withoutAnsweredAt(field)]))
}

async function dataOf(baseUrl: string, key: string, route: string): Promise<any> {
  return ok(call(baseUrl, 'GET', route, { key }), 200, route)
}

/** Everything a client reads of the data dir: the admin lists, and per workspace its settings, lists, balances, windows, exports, webhooks. */
async function readAll(baseUrl: string, written: ReadonlyMap<string, Written>): Promise<Record<string, unknown>> {
  const all: Record<string, unknown> = { workspaces: await dataOf(baseUrl, adminToken, '/admin/workspaces'), keys: await dataOf(baseUrl, adminToken, '/admin/keys?limit=1000') }
  for (const [id, { key, windows, hook }] of written) {
    const accounts = (await listAll(baseUrl, key, '/v2/accounts', 1000)).items
    const balances = await Promise.all(accounts.map((account: any) => dataOf(baseUrl, key, `/v2/accounts/${account.id}/balance`)))
    const status = await Promise.all(accounts.map((account: any) => dataOf(baseUrl, key, `/v2/accounts/${account.id}/reconciliation-status`)))
    all[id] = withoutAnsweredAt({
      workspace: await dataOf(baseUrl, key, '/v2/workspace'), accounts, balances, status,
      entries: (await listAll(baseUrl, key, '/v2/entries', 1000)).items, rules: await dataOf(baseUrl, key, '/v2/matching-rules'),
      windows: await dataOf(baseUrl, key, '/v2/reconciliations?limit=100'), each: await Promise.all(windows.map((window) => readWindow(baseUrl, key, window))),
      exports: await Promise.all(windows.map((window) => dataOf(baseUrl, key, `/v2/reconciliations/${window}/export?format=json`))),
      webhooks: await dataOf(baseUrl, key, '/v2/webhooks'), deliveries: await dataOf(baseUrl, key, `/v2/webhooks/${hook}/deliveries?limit=1000`),
    })
  }
  return all
}

/** Waits (bounded) until every delivery of every workspace's webhook is delivered, so the reads stop moving. */
async function deliveriesSettled(baseUrl: string, written: ReadonlyMap<string, Written>): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    let pending = 0
    for (const { key, hook } of written.values()) pending += (await dataOf(baseUrl, key, `/v2/webhooks/${hook}/deliveries?limit=1000`)).data.filter((row: any) => row.status !== 'succeeded').length
    if (pending === 0) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('webhook deliveries did not settle')
}

async function writeSingleLog(dataDir: string): Promise<Map<string, Written>> {
  const single = await start(dataDir, 1)
  const written = new Map<string, Written>()
  for (const [index, id] of workspaceIds.entries()) written.set(id, await writeWorkspace(single.baseUrl, id, index))
  await deliveriesSettled(single.baseUrl, written)
  return written
}

t.test('the single log written by SHARDS=1 converts to SHARDS=4: every read the same, then writes go on', async (t) => {
  t.ok(new Set(workspaceIds.map((id) => shardOf(id, 4))).size >= 3, 'the workspaces spread over the shards')
  const dataDir = path.join(tmpRoot, 'main')
  const written = await writeSingleLog(dataDir)
  const single = live[live.length - 1]
  const before = await readAll(single.baseUrl, written)
  await killHard(single)

  const four = await start(dataDir, 4)
  t.match(four.stdout.join('\n'), /converted DATA_DIR .* from the single log to SHARDS=4: 7 workspaces/, 'the conversion says what it did')
  t.ok(fs.existsSync(path.join(dataDir, 'log.before-shards', 'data.mdb')), 'the single log is kept aside')
  t.notOk(fs.existsSync(path.join(dataDir, 'log')), 'and no longer the data dir\'s log')
  t.notOk(fs.existsSync(path.join(dataDir, 'shards.converting')), 'nothing of the building left')
  t.same(JSON.parse(fs.readFileSync(path.join(dataDir, 'shards.json'), 'utf8')), { shards: 4 })
  const after = await readAll(four.baseUrl, written)
  t.same(after, before, 'every read answers as before the conversion')

  for (const [id, { key, keyed }] of written) {
    for (const request of keyed) {
      const again = await call(four.baseUrl, 'POST', request.route, { key, body: request.body, headers: { 'idempotency-key': request.key } })
      t.equal(again.headers.get('replayed'), 'true', `${id} ${request.route}: the stored answer`)
      t.equal(again.text, request.answer, `${id} ${request.route}: as first answered`)
    }
  }
  const { key, closed } = written.get('conv-c')!
  const pack = path.join(tmpRoot, 'pack.json')
  fs.writeFileSync(pack, JSON.stringify(await dataOf(four.baseUrl, key, `/v2/reconciliations/${closed}/export?format=json`)))
  t.match(execFileSync(process.execPath, [path.join(repositoryRoot, 'scripts/verify-seal.mjs'), pack], { encoding: 'utf8' }), /MATCH: the export is the content that was sealed/, 'the seal verifies')

  const oldIds = new Set((after['conv-c'] as any).entries.map((entry: any) => entry.id))
  const posted = await ok(call(four.baseUrl, 'POST', '/v2/entries', { key, body: sale(9, '2026-04-01T00:00:00Z') }), 201, 'a new entry')
  t.notOk(oldIds.has(posted.id), 'a new entry id, none given before')
  const created = await ok(call(four.baseUrl, 'POST', '/admin/workspaces', { key: adminToken, body: { id: 'conv-new', timezone: 'UTC', limits } }), 201, 'a new workspace')
  t.equal(created.id, 'conv-new')
  const more = await readAll(four.baseUrl, written)
  await killHard(four)

  const again = await start(dataDir, 4)
  t.notMatch(again.stdout.join('\n'), /converted/, 'no second conversion')
  t.same(await readAll(again.baseUrl, written), more, 'the second start reads as the first')
  await killHard(again)
  const refused = await runToExit({ dataDir, adminToken, env: { SHARDS: '1' }, timeoutMs: 120_000 })
  t.equal(refused.code, 2, 'SHARDS=1 on the converted data dir is refused')
  t.match(refused.stderr, /was written with SHARDS=4; start it with SHARDS=4/)
})

t.test('a kill -9 at each step of a conversion leaves a data dir that starts and converts, every read the same', async (t) => {
  const source = path.join(tmpRoot, 'crash-source')
  const single = await start(source, 1)
  const written = new Map([['conv-a', await writeWorkspace(single.baseUrl, 'conv-a', 0)]])
  await deliveriesSettled(single.baseUrl, written)
  const before = await readAll(single.baseUrl, written)
  await killHard(single)
  for (const step of ['first-log-built', 'built', 'registry-moved', 'shards-moved', 'switched']) {
    const dataDir = path.join(tmpRoot, `crash-${step}`)
    fs.cpSync(source, dataDir, { recursive: true })
    const killed = await runToExit({ dataDir, adminToken, env: { SHARDS: '4', [convertKillAtEnv]: step }, timeoutMs: 120_000 })
    t.equal(killed.signal, 'SIGKILL', `${step}: killed there`)
    if (step === 'shards-moved') {
      // Until the switch the data dir is still the single log: SHARDS=1 serves it as before (the last step before it).
      const still = await start(dataDir, 1)
      t.same(await readAll(still.baseUrl, written), before, `${step}: SHARDS=1 still serves the single log`)
      await killHard(still)
    }
    const four = await start(dataDir, 4)
    t.same(await readAll(four.baseUrl, written), before, `${step}: SHARDS=4 starts, every read as before`)
    t.ok(fs.existsSync(path.join(dataDir, 'log.before-shards', 'data.mdb')), `${step}: the single log kept aside`)
    t.notOk(fs.existsSync(path.join(dataDir, 'log')) || fs.existsSync(path.join(dataDir, 'shards.converting')), `${step}: nothing left over`)
    await killHard(four)
  }
})
