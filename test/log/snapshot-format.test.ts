/**
 * The snapshot format (src/log/snapshot.ts): a head and entry chunks that rebuild the same state, stale chunks
 * removed, a damaged or missing chunk refused as a whole (replay rebuilds that workspace from the log), and
 * version 1 snapshots (one value, entries as objects) still read.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import type { RootDatabase } from 'lmdb'
import { Packr } from 'msgpackr'
import t from 'tap'
import { Runtime } from '../../src/actor/runtime.ts'
import type { WorkspaceActor } from '../../src/actor/workspace-actor.ts'
import type { WorkspaceCommand } from '../../src/ledger/commands.ts'
import type { WorkspaceState } from '../../src/ledger/state.ts'
import { limitsDefault } from '../../src/ledger/system.ts'
import { frame } from '../../src/log/codec.ts'
import { CommandLog } from '../../src/log/command-log.ts'
import { loadSnapshots, removeSnapshotsAfter, writeSnapshot, writeSystemSnapshot } from '../../src/log/snapshot.ts'

const roots: string[] = []
t.teardown(() => { for (const dir of roots) fs.rmSync(dir, { recursive: true, force: true }) })

const startMs = Date.UTC(2025, 0, 1)
const dayMs = 86_400_000

function openLog(dir: string): CommandLog {
  return new CommandLog({ path: path.join(dir, 'log'), groupCommitRecordsMax: 1_000, pendingRecordsMax: 10_000 })
}

function durable(log: CommandLog): Promise<void> {
  return new Promise((resolve, reject) => log.afterDurable(log.lastSeq, (error) => (error === null ? resolve() : reject(error))))
}

/** A workspace with what a snapshot must carry: back-dated entries, several lines on one account, metadata, a renamed account, a window, idempotency. */
async function populated(entriesCount: number): Promise<{ dir: string; runtime: Runtime; log: CommandLog; actor: WorkspaceActor }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-snapshot-format-'))
  roots.push(dir)
  const log = openLog(dir)
  const runtime = new Runtime(log, 1_000_000)
  runtime.replay(() => 0)
  let atMs = startMs
  t.ok(runtime.submitSystem({ type: 'workspace.create', at_ms: atMs++, id: 'default', time_zone: 'UTC', limits: limitsDefault, tag: 'tg7x' }).outcome.ok)
  const actor = runtime.actor('default')
  const submit = (body: Record<string, unknown>, idempotency?: string) => {
    const command = { ...body, at_ms: atMs++, key_id: 'key_test', visibility: null, ...(idempotency === undefined ? {} : { idempotency: { key: idempotency, fingerprint: `f-${idempotency}` } }) } as unknown as WorkspaceCommand
    const { outcome } = actor.submit(command)
    if (!outcome.ok) throw new Error(`${command.type} rejected: ${outcome.code} ${outcome.message}`)
    return outcome.body as { id: string }
  }
  for (const name of ['assets:bank', 'income:sales', 'expenses:fees']) submit({ type: 'account.create', name, tags: ['t'] })
  for (let i = 0; i < entriesCount; i++) {
    // Every fifth back-dated, every seventh on three lines with two on the same account.
    const effective = i % 5 === 4 ? startMs - 100 * dayMs + i * 1_000 : startMs - 50 * dayMs + i * 60_000
    const lines = i % 7 === 3
      ? [{ account: 'assets:bank', amount: 10 + i }, { account: 'assets:bank', amount: 5 }, { account: 'income:sales', amount: -15 - i }]
      : [{ account: 'assets:bank', amount: 100 + i }, { account: i % 2 === 0 ? 'income:sales' : 'expenses:fees', amount: -100 - i }]
    submit({ type: 'entry.post', lines, effective_at_ms: effective, description: i % 3 === 0 ? null : `entry ${i}`, metadata: i % 4 === 0 ? { n: String(i) } : null }, i % 6 === 0 ? `key-${i}` : undefined)
  }
  submit({ type: 'account.update', account: 'expenses:fees', name: 'expenses:bank-fees' })
  submit({ type: 'window.open', label: 'w', accounts: ['assets:bank'], from: '2024-11-01', to: '2024-12-31', claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' })
  submit({ type: 'entry.post', lines: [{ account: 'assets:bank', amount: 1 }, { account: 'income:sales', amount: -1 }], effective_at_ms: Date.UTC(2024, 11, 1), description: null, metadata: null })
  await durable(log)
  return { dir, runtime, log, actor }
}

/** Everything a snapshot stands for, indexes included (as the points they hold). */
function view(state: WorkspaceState): unknown {
  for (const account of state.accounts) account.index.verify()
  state.entryOrder.verify()
  return {
    accounts: state.accounts.map((account) => ({ ...account, index: [...account.index.iterate()] })),
    byName: [...state.accountsByName].map(([name, account]) => [name, account.seq]),
    entries: state.entries.map((entry) => entry.toJSON()),
    entryOrder: [...state.entryOrder.iterate()],
    idempotency: [...state.idempotency],
    idempotencyOrder: state.idempotencyOrder.slice(state.idempotencyOrderHead),
    windows: state.windows.windows,
    matches: state.windows.matches,
    live: [...state.windows.liveWindowsByAccount].map(([accountSeq, windows]) => [accountSeq, [...windows]]),
    webhooks: state.webhooks,
  }
}

function snapshotsOf(root: RootDatabase) {
  return root.openDB<Buffer, string>({ name: 'snapshots', encoding: 'binary' })
}

async function written(log: CommandLog, actor: WorkspaceActor, perChunk?: number): Promise<void> {
  const failures: string[] = []
  await writeSnapshot(log.root, actor, log.durableSeq, (name, error) => failures.push(`${name}: ${error.message}`), perChunk)
  if (failures.length > 0) throw new Error(failures.join('; '))
}

t.test('a snapshot cut into chunks rebuilds the same state, indexes included; a shorter one removes the chunks it no longer has', async (t) => {
  const { log, actor } = await populated(60)
  await written(log, actor, 7)
  const keys = () => [...snapshotsOf(log.root).getKeys({})].map(String).filter((key) => key.startsWith('default')).sort()
  t.same(keys(), ['default', ...Array.from({ length: 9 }, (_, index) => `default entries ${index}`)].sort(), '61 entries in 9 chunks of 7')
  const loaded = loadSnapshots(log.root)
  t.same(loaded.unusable, [])
  t.ok(isDeepStrictEqual(view(loaded.workspaces.get('default')!.state), view(actor.state)), 'the loaded state is the live one')
  t.equal(loaded.workspaces.get('default')!.seq, log.durableSeq)

  await written(log, actor, 25)
  t.same(keys(), ['default', 'default entries 0', 'default entries 1', 'default entries 2'], 'chunks 3..8 of the longer cut are gone')
  const again = loadSnapshots(log.root)
  t.ok(isDeepStrictEqual(view(again.workspaces.get('default')!.state), view(actor.state)), 'and it rebuilds the same state')
  await log.close()
})

t.test('a damaged or missing chunk makes the whole snapshot unusable; the log rebuilds the workspace', async (t) => {
  const { dir, log, actor } = await populated(40)
  const expected = view(actor.state)
  await written(log, actor, 16)
  const db = snapshotsOf(log.root)
  const chunk = Buffer.from(db.get('default entries 1')!)
  chunk[Math.floor(chunk.length / 2)] ^= 0x10
  db.putSync('default entries 1', chunk)
  const damaged = loadSnapshots(log.root)
  t.equal(damaged.workspaces.size, 0, 'not used')
  t.same(damaged.unusable.map((snapshot) => snapshot.name), ['workspace default'], 'named once, by its workspace')
  t.match(damaged.unusable[0].reason, /entries chunk 1: checksum mismatch/)
  db.removeSync('default entries 2')
  t.match(loadSnapshots(log.root).unusable[0]?.reason ?? '', /entries chunk 1|entries chunk 2 is missing/)
  await log.close()

  const reopened = openLog(dir)
  const warnings: string[] = []
  const runtime = new Runtime(reopened, 1_000_000, (line) => warnings.push(line))
  const report = runtime.replay(() => 0)
  t.equal(report.snapshots, 0)
  t.ok(warnings.some((line) => /snapshot of workspace default is damaged/.test(line)), 'with a warning')
  t.ok(isDeepStrictEqual(view(runtime.actor('default').state), expected), 'the log rebuilds the same state')
  await reopened.close()
})

t.test('a version 1 snapshot (one value, entries as objects) still loads', async (t) => {
  const { log, actor } = await populated(30)
  const state = actor.state
  // The version 1 body, as the previous release wrote it: plain msgpack maps, framed under the workspace id.
  const v1 = {
    v: 1, seq: log.durableSeq, workspaceId: 'default', tag: state.tag,
    accounts: state.accounts.map(({ id, seq, name, tags, createdAtMs }) => ({ id, seq, name, tags, createdAtMs })),
    entries: state.entries.map(({ id, seq, lines, effectiveAtMs, postedAtMs, description, metadata }) => ({ id, seq, lines, effectiveAtMs, postedAtMs, description, metadata })),
    idempotency: state.idempotencyOrder.slice(state.idempotencyOrderHead).map((key) => state.idempotency.get(key)),
    windows: state.windows.windows.map((window) => ({ ...window, matchedEntries: [...window.matchedEntries] })),
    matches: state.windows.matches,
  }
  const packr = new Packr({ useRecords: false, mapsAsObjects: true, variableMapSize: true })
  snapshotsOf(log.root).putSync('default', frame(Buffer.from('default', 'utf8'), packr.pack(v1)))
  const loaded = loadSnapshots(log.root)
  t.same(loaded.unusable, [])
  t.ok(isDeepStrictEqual(view(loaded.workspaces.get('default')!.state), view(state)), 'the same state as the live one')
  await log.close()
})

t.test('removeSnapshotsAfter removes the snapshots past a seq (a workspace\'s head with its chunks, the system\'s) and keeps the others', async (t) => {
  const { log, actor, runtime } = await populated(20)
  await written(log, actor, 7)
  const seq = log.durableSeq
  writeSystemSnapshot(log.root, seq, runtime.system, (name, error) => { throw new Error(`${name}: ${error.message}`) })
  await log.root.flushed
  const keys = () => [...snapshotsOf(log.root).getKeys({})].map(String).sort()
  t.ok(keys().length > 3, `a head, its chunks and the system's: ${keys().join(', ')}`)
  let removed: string[] = []
  await log.root.transaction(() => { removed = removeSnapshotsAfter(log.root, seq) })
  t.same(removed, [], 'none stands past the seq it was taken at')
  t.ok(keys().length > 3, 'all kept')
  await log.root.transaction(() => { removed = removeSnapshotsAfter(log.root, seq - 1) })
  t.same(removed, [`workspace default at seq ${seq}`, `the system at seq ${seq}`], 'both past seq - 1')
  t.same(keys(), [], 'no head, chunk or system snapshot left')
  await log.close()
})
