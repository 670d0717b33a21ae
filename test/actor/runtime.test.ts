/**
 * The runtime (src/actor/runtime.ts) over a real LMDB log: system commands accepted and appended, refused
 * and not appended (state unchanged), 503 unavailable once the log cannot take more; actors per workspace;
 * replay rebuilds the same state; snapshot rounds (due by interval, forced, only of durable state, none
 * after a failed commit) and the start-up that skips what they cover; a snapshot past the log's end refuses to start.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { Runtime } from '../../src/actor/runtime.ts'
import type { WorkspaceCommand } from '../../src/ledger/commands.ts'
import { limitsDefault, type SystemCommand } from '../../src/ledger/system.ts'
import { CommandLog, type CommitFaults } from '../../src/log/command-log.ts'
import { stableSerialize } from '../support/state-fingerprint.ts'

const nowMs = Date.parse('2026-12-01T12:00:00.000Z')

function tempDir(t: Tap): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-runtime-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}
type Tap = Parameters<Parameters<typeof t.test>[0]>[0]

function openLog(dir: string, options: { pendingRecordsMax?: number; faults?: CommitFaults } = {}): CommandLog {
  return new CommandLog({ path: path.join(dir, 'log'), groupCommitRecordsMax: 1_000, pendingRecordsMax: options.pendingRecordsMax ?? 10_000, faults: options.faults })
}

/**
 * The facts: system and workspace states. Not the seqs: a snapshot stands for the durable end of the log
 * when it was written, so after a start from it an actor's lastAppliedSeq may be past its own last record.
 */
function facts(runtime: Runtime): Record<string, string> {
  const texts: Record<string, string> = { system: stableSerialize(runtime.system) }
  for (const [id, actor] of runtime.actors) texts[id] = stableSerialize(actor.state)
  return texts
}

function started(log: CommandLog, interval = 1_000_000, warnings: string[] = []): Runtime {
  const runtime = new Runtime(log, interval, (line) => warnings.push(line))
  runtime.replay(() => nowMs)
  return runtime
}

const workspace = (id: string, tag: string): SystemCommand => ({ type: 'workspace.create', at_ms: nowMs, id, time_zone: 'UTC', limits: limitsDefault, tag })
const account = (name: string, atMs = nowMs): WorkspaceCommand => ({ type: 'account.create', at_ms: atMs, key_id: 'key_test', visibility: null, name, tags: [] })
const entry = (amount: number, atMs = nowMs): WorkspaceCommand => ({
  type: 'entry.post', at_ms: atMs, key_id: 'key_test', visibility: null, lines: [{ account: 'assets:bank', amount }, { account: 'income:sales', amount: -amount }], effective_at_ms: null, description: null, metadata: null,
})

/** A workspace with two accounts and some postings, everything durable. */
async function populated(runtime: Runtime, id: string, tag: string, postings: number): Promise<void> {
  runtime.submitSystem(workspace(id, tag))
  const actor = runtime.actor(id)
  actor.submit(account('assets:bank'))
  actor.submit(account('income:sales'))
  for (let index = 1; index <= postings; index++) actor.submit(entry(index, nowMs + index))
  await runtime.log.idle()
}

t.test('submitSystem: an accepted command is appended and its seq is the barrier; a refused one appends nothing', async (t) => {
  const log = openLog(tempDir(t))
  const runtime = started(log)
  const created = runtime.submitSystem(workspace('acme', 'tg1'))
  t.ok(created.outcome.ok)
  t.equal(created.barrierSeq, 1)
  t.equal(runtime.systemSeq, 1)
  t.ok(runtime.actors.has('acme'), 'a workspace.create makes its actor')
  const before = facts(runtime)
  const refused = runtime.submitSystem(workspace('acme', 'tg2'))
  t.equal(refused.outcome.ok ? 'accepted' : refused.outcome.code, 'workspace_exists')
  t.equal(refused.barrierSeq, 1, 'a refusal waits for the last system command (it may rest on it)')
  t.equal(log.lastSeq, 1, 'nothing appended')
  t.same(facts(runtime), before, 'the system state is unchanged')
  t.throws(() => runtime.actor('nope'), /no actor for workspace nope/)
  await log.close()
})

t.test('503 unavailable before anything changes when the log cannot take more writes', async (t) => {
  const log = openLog(tempDir(t), { pendingRecordsMax: 1 })
  const runtime = started(log)
  t.ok(runtime.submitSystem(workspace('acme', 'tg1')).outcome.ok)
  const before = facts(runtime)
  const refused = runtime.submitSystem(workspace('other', 'tg2'))
  t.equal(refused.outcome.ok ? 'accepted' : refused.outcome.code, 'unavailable', 'one record pending, the bound is one')
  t.equal(refused.barrierSeq, 0)
  t.same(facts(runtime), before)
  await log.idle()
  t.ok(runtime.submitSystem(workspace('other', 'tg2')).outcome.ok, 'accepted again once the commit is durable')
  await log.close()
})

t.test('replay rebuilds the system and every workspace exactly; workspace records go to their own actor', async (t) => {
  const dir = tempDir(t)
  const log = openLog(dir)
  const runtime = started(log)
  await populated(runtime, 'a', 'tga', 5)
  await populated(runtime, 'b', 'tgb', 3)
  runtime.actor('a').submit(entry(99, nowMs + 99))
  await log.idle()
  const expected = facts(runtime)
  await log.close()
  const reopened = openLog(dir)
  const restarted = new Runtime(reopened, 1_000_000)
  const report = restarted.replay(() => nowMs)
  t.equal(report.records, reopened.lastSeq, 'without snapshots every record is applied')
  t.same(report.snapshots, 0)
  t.same(facts(restarted), expected)
  t.equal(restarted.actor('a').lastAppliedSeq, reopened.lastSeq, 'the actor knows its last record')
  await reopened.close()
})

t.test('snapshotDue: by interval, forced, only of durable state; the next start skips what they cover', async (t) => {
  const dir = tempDir(t)
  const log = openLog(dir)
  const runtime = started(log, 5)
  await populated(runtime, 'a', 'tga', 6)
  await populated(runtime, 'b', 'tgb', 1)
  t.equal(runtime.snapshotDue(false), 1, 'only a has moved on by the interval (8 commands; b has 3)')
  t.equal(runtime.actor('a').commandsSinceSnapshot, 0)
  // snapshotSeq moves once the write has committed (issue 12.16), a little after snapshotDue returns.
  for (let tries = 0; tries < 200 && runtime.actor('a').snapshotSeq === 0; tries++) await new Promise((resolve) => setTimeout(resolve, 5))
  t.equal(runtime.actor('a').snapshotSeq, log.durableSeq)
  runtime.actor('b').submit(entry(7, nowMs + 50))
  t.equal(runtime.snapshotDue(true), 0, 'b is not durable yet: nothing of it may be snapshotted')
  await log.idle()
  t.equal(runtime.snapshotDue(true), 1, 'forced: b, which moved; a has not moved since its snapshot')
  await log.root.flushed
  const expected = facts(runtime)
  const oldestSnapshotSeq = Math.min(runtime.actor('a').snapshotSeq, runtime.actor('b').snapshotSeq)
  await log.close()
  const reopened = openLog(dir)
  const restarted = new Runtime(reopened, 5)
  const report = restarted.replay(() => nowMs)
  t.equal(report.snapshots, 2)
  t.equal(report.records, 0, 'the system and both workspaces start from snapshots: no record left to apply')
  t.equal(report.recordsSkipped, oldestSnapshotSeq, 'the records up to the oldest snapshot are not read (recovery starts after it)')
  t.same(facts(restarted), expected)
  await reopened.close()
})

t.test('after a failed commit no snapshot is written', async (t) => {
  const dir = tempDir(t)
  let failing = false
  const log = openLog(dir, { faults: { transaction: () => { if (failing) throw new Error('disk full') } } })
  const runtime = started(log, 1)
  await populated(runtime, 'a', 'tga', 2)
  failing = true
  runtime.actor('a').submit(entry(5, nowMs + 10))
  await log.idle()
  t.ok(log.failure !== null)
  t.equal(runtime.snapshotDue(true), 0, 'memory holds a record the log does not')
  const refused = runtime.actor('a').submit(entry(6, nowMs + 11))
  t.equal(refused.outcome.ok ? 'accepted' : refused.outcome.code, 'unavailable', 'and new writes are refused')
  await log.close()
})

t.test('a snapshot past the end of the log refuses to start (acknowledged records are missing)', async (t) => {
  const dir = tempDir(t)
  const log = openLog(dir)
  const runtime = started(log)
  await populated(runtime, 'a', 'tga', 3)
  runtime.snapshotDue(true)
  await log.root.flushed
  // Format 2: records keyed by the seq as a number in database `records` (src/log/record-store.ts).
  const records = log.root.openDB<Buffer, number>({ name: 'records', encoding: 'binary' })
  await records.remove(log.lastSeq)
  await log.close()
  const reopened = openLog(dir)
  t.throws(() => new Runtime(reopened, 1_000_000).replay(() => nowMs), /covers the log up to record \d+, but the log .* ends at record/)
  await reopened.close()
})
