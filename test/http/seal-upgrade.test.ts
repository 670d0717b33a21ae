/**
 * The signed seal on upgrade (docs/API.md, "The seal"): a data dir written before workspaces had keys (the
 * workspace.create command without key fields, a window closed and sealed by its SHA-256 alone) gets, at the
 * next start, a key for its workspace and the closed window's signature, with a `seal.signed` history event;
 * the sha256 stays the one made at the close, recomputes from the export and verifies against the key; a
 * second start signs nothing again, from snapshots or from the log alone.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { open } from 'lmdb'
import t from 'tap'
import { Runtime } from '../../src/actor/runtime.ts'
import { createKeyCommand, newKeySecret } from '../../src/api/admin-routes.ts'
import type { WorkspaceCommand } from '../../src/ledger/commands.ts'
import { limitsDefault, scopes } from '../../src/ledger/system.ts'
import { CommandLog } from '../../src/log/command-log.ts'
import { getWindowOk, historyOf } from '../support/recon.ts'
import { recomputeSeal } from '../support/seal-recompute.ts'
import { signatureValid, verifySealScript } from '../support/seal-signature.ts'
import { call, startTestService, type TestService } from '../support/service.ts'

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-seal-upgrade-'))
t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }))

/** The old data dir: every command in the shape logged before keys existed; returns the key's secret and the window's id and seal. */
async function writeOldDataDir(): Promise<{ secret: string; windowId: string; sha256: string }> {
  const log = new CommandLog({ path: path.join(dataDir, 'log'), groupCommitRecordsMax: 1_000, pendingRecordsMax: 10_000 })
  const runtime = new Runtime(log, 1_000, () => {})
  runtime.replay(() => 0)
  let atMs = Date.UTC(2026, 4, 1)
  const created = runtime.submitSystem({ type: 'workspace.create', at_ms: atMs++, id: 'default', time_zone: 'UTC', limits: limitsDefault, tag: 'old1x' })
  if (!created.outcome.ok || (created.outcome.body as any).seal_public_key !== null) throw new Error('an old workspace.create makes a workspace without a key')
  const secret = newKeySecret()
  const keyCommand = createKeyCommand(atMs++, 'default', scopes, null, 'default', secret)
  if (!runtime.submitSystem(keyCommand).outcome.ok) throw new Error('key')
  const actor = runtime.actor('default')
  const run = (body: Record<string, unknown>): any => {
    const outcome = actor.submit({ at_ms: atMs++, key_id: keyCommand.id, visibility: null, ...body } as WorkspaceCommand)
    if (!outcome.outcome.ok) throw new Error(`${String(body.type)}: ${outcome.outcome.message}`)
    return outcome.outcome.body
  }
  for (const name of ['assets:bank', 'income:sales']) run({ type: 'account.create', name, tags: [] })
  const entry = run({ type: 'entry.post', lines: [{ account: 'assets:bank', amount: 900 }, { account: 'income:sales', amount: -900 }], effective_at_ms: Date.UTC(2026, 3, 3), description: 'April', metadata: null })
  const window = run({ type: 'window.open', label: 'April', accounts: ['assets:bank'], from: '2026-04-01', to: '2026-04-30', claimed_movement: 900, statement_ref: null, tolerance: 0, time_zone: 'UTC' })
  run({ type: 'window.lines.add', window: window.id, lines: [{ amount: 900, date: '2026-04-03', reference: null, description: 'April' }] })
  run({ type: 'match.create', window: window.id, statement_lines: ['l1'], entries: [entry.id], strategy: 'amount_and_date', reason: null })
  const closed = run({ type: 'window.transition', window: window.id, state: 'closed', reason: null })
  await new Promise<void>((resolve, reject) => log.afterDurable(log.lastSeq, (error) => (error === null ? resolve() : reject(error))))
  runtime.snapshotDue(true)
  await log.idle()
  await log.close()
  const sha256 = typeof closed.seal === 'string' ? closed.seal : closed.seal.sha256
  if (typeof closed.seal !== 'string' && closed.seal.signature !== null) throw new Error('a workspace without a key signs nothing')
  return { secret, windowId: window.id, sha256 }
}

async function removeSnapshots(): Promise<void> {
  const root = open({ path: path.join(dataDir, 'log'), maxDbs: 8 })
  try {
    const snapshots = root.openDB<Buffer, string>({ name: 'snapshots', encoding: 'binary' })
    for (const name of [...snapshots.getKeys({})]) snapshots.removeSync(name)
    await root.flushed
  } finally {
    await root.close()
  }
}

const old = await writeOldDataDir()
// The data dir is the single log as an older version wrote it: it is served as written with one shard.
const singleLog = { SHARDS: '1' }
let service: TestService = await startTestService({ dataDir, apiKey: old.secret, env: singleLog })
t.teardown(() => service.stop())
const key = old.secret

async function exportJson(id: string): Promise<any> {
  const reply = await call(service.baseUrl, 'GET', `/v2/reconciliations/${id}/export?format=json`, { key })
  if (reply.status !== 200) throw new Error(`export: ${reply.status} ${reply.text}`)
  return reply.body
}

const workspace = await call(service.baseUrl, 'GET', '/v2/workspace', { key })
const workspaceKey: string = workspace.body.seal_public_key

t.test('the start after the upgrade gives the workspace a key and signs the closed window, its sha256 unchanged', async (t) => {
  t.equal(Buffer.from(workspaceKey ?? '', 'base64').length, 32, 'the workspace has a key now')
  const read = await getWindowOk(service.baseUrl, key, old.windowId)
  t.equal(read.seal.sha256, old.sha256, 'the sha256 made at the close')
  t.equal(read.seal.public_key, workspaceKey)
  t.ok(signatureValid(read.seal.sha256, read.seal.signature, workspaceKey), 'signed with the workspace key')
  const history = await historyOf(service.baseUrl, key, old.windowId)
  t.match(history.at(-1), { type: 'seal.signed', state: 'closed', reason: 'signed on upgrade' }, 'a history event says so')
  t.equal(history.filter((event: any) => event.type === 'seal.signed').length, 1)
  const pack = await exportJson(old.windowId)
  t.equal(recomputeSeal(pack), old.sha256, 'the docs recipe recomputes the old sha256 from the export')
  const verified = verifySealScript(dataDir, pack, ['--public-key', workspaceKey])
  t.equal(verified.code, 0, `verify-seal.mjs with the key: ${verified.stdout}${verified.stderr}`)
})

for (const how of ['snapshots', 'the log alone'] as const) {
  t.test(`a restart from ${how}: the same key and signature, nothing signed twice`, async (t) => {
    const before = await getWindowOk(service.baseUrl, key, old.windowId)
    const historyBefore = await historyOf(service.baseUrl, key, old.windowId)
    await service.stop()
    if (how === 'the log alone') await removeSnapshots()
    service = await startTestService({ dataDir, apiKey: key, env: singleLog })
    t.equal((await call(service.baseUrl, 'GET', '/v2/workspace', { key })).body.seal_public_key, workspaceKey)
    t.same((await getWindowOk(service.baseUrl, key, old.windowId)).seal, before.seal)
    t.same(await historyOf(service.baseUrl, key, old.windowId), historyBefore)
    t.equal(verifySealScript(dataDir, await exportJson(old.windowId), ['--public-key', workspaceKey]).code, 0)
  })
}
