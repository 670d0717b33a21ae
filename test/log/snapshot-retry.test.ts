/**
 * A snapshot write that fails (issue 12.16): the workspace's snapshotSeq stays where the last committed
 * snapshot put it, the failure is warned about, and the write is tried again at the next check instead of
 * after another full interval of commands; repeated failures back off, boundedly; once one commits, its seq
 * is recorded and the snapshot loads. The failures are injected where the runtime hands the state to the
 * snapshot store; the writes that go through are the real ones.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { Runtime, type WorkspaceSnapshotWriter } from '../../src/actor/runtime.ts'
import { snapshotRetryChecksMax } from '../../src/actor/snapshot-retries.ts'
import type { WorkspaceCommand } from '../../src/ledger/commands.ts'
import { limitsDefault } from '../../src/ledger/system.ts'
import { CommandLog } from '../../src/log/command-log.ts'
import { loadSnapshots, writeSnapshot } from '../../src/log/snapshot.ts'

const roots: string[] = []
t.teardown(() => { for (const dir of roots) fs.rmSync(dir, { recursive: true, force: true }) })

const interval = 3

/** The snapshot store behind a switch: failing (as a full disk would), or the real writer. */
class FaultySnapshots {
  failing = true
  attempts = 0
  readonly pending: Promise<boolean>[] = []
  constructor(readonly log: CommandLog) {}

  readonly write: WorkspaceSnapshotWriter = (state, seq, failed) => {
    this.attempts++
    const written = this.failing
      ? Promise.resolve().then(() => {
        failed(`workspace ${state.workspaceId}`, new Error('MDB_MAP_FULL: Environment mapsize limit reached (injected)'))
        return false
      })
      : writeSnapshot(this.log.root, state, seq, failed)
    this.pending.push(written)
    return written
  }

  /** Until every write started so far has settled and the runtime has seen how. */
  async settled(): Promise<void> {
    await Promise.all(this.pending)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

async function started(t: Test): Promise<{ runtime: Runtime; log: CommandLog; faults: FaultySnapshots; warnings: string[]; post: (count: number) => Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-snapshot-retry-'))
  roots.push(dir)
  const log = new CommandLog({ path: path.join(dir, 'log'), groupCommitRecordsMax: 1_000, pendingRecordsMax: 10_000 })
  t.teardown(() => log.close())
  const faults = new FaultySnapshots(log)
  const warnings: string[] = []
  const runtime = new Runtime(log, interval, (line) => warnings.push(line), { writeSnapshot: faults.write })
  runtime.replay(() => 0)
  let atMs = Date.UTC(2026, 0, 1)
  t.ok(runtime.submitSystem({ type: 'workspace.create', at_ms: atMs++, id: 'default', time_zone: 'UTC', limits: limitsDefault, tag: 'tg7x' }).outcome.ok)
  let serial = 0
  const post = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const command = { type: 'account.create', name: `assets:a${serial++}`, tags: [], at_ms: atMs++, key_id: 'key_test', visibility: null } as WorkspaceCommand
      t.ok(runtime.actor('default').submit(command).outcome.ok)
    }
    await new Promise<void>((resolve, reject) => log.afterDurable(log.lastSeq, (error) => (error === null ? resolve() : reject(error))))
  }
  return { runtime, log, faults, warnings, post }
}

t.test('a failed snapshot write leaves snapshotSeq alone, is warned about and is tried again at the next check', async (t) => {
  const { runtime, log, faults, warnings, post } = await started(t)
  const actor = runtime.actor('default')
  await post(interval)
  t.equal(runtime.snapshotDue(false), 1, 'the interval is reached: one snapshot write starts')
  await faults.settled()
  t.equal(actor.snapshotSeq, 0, 'the write failed: snapshotSeq is not advanced')
  t.equal(actor.commandsSinceSnapshot, interval, 'and the commands it was to cover still count')
  t.equal(runtime.snapshotFailures('default'), 1)
  t.match(warnings.join('\n'), /snapshot of workspace default could not be written \(MDB_MAP_FULL.*injected\)/, 'the failure is warned about')
  t.same(loadSnapshots(log.root).workspaces.size, 0, 'no snapshot is stored')

  faults.failing = false
  t.equal(runtime.snapshotDue(false), 1, 'the next check tries again, without waiting for another interval of commands')
  t.equal(faults.attempts, 2)
  await faults.settled()
  t.equal(actor.snapshotSeq, log.durableSeq, 'once committed, snapshotSeq is the seq the snapshot stands for')
  t.equal(actor.commandsSinceSnapshot, 0)
  t.equal(runtime.snapshotFailures('default'), 0)
  const loaded = loadSnapshots(log.root).workspaces.get('default')
  t.equal(loaded?.seq, log.durableSeq, 'and it is the stored one')
  t.equal(loaded?.state.accounts.length, interval)
  t.equal(runtime.snapshotDue(false), 0, 'nothing is due after it')
})

t.test('repeated failures back off (1, 2, 4, … checks apart), boundedly, and commands during a write are not lost', async (t) => {
  const { runtime, faults, post } = await started(t)
  const actor = runtime.actor('default')
  await post(interval)
  const attemptsAt: number[] = []
  for (let check = 1; check <= 400; check++) {
    const before = faults.attempts
    runtime.snapshotDue(false)
    if (faults.attempts > before) attemptsAt.push(check)
    await faults.settled()
  }
  const gaps = attemptsAt.slice(1).map((at, i) => at - attemptsAt[i])
  t.same(gaps.slice(0, 7), [1, 2, 4, 8, 16, 32, 64], 'the wait doubles after each failure')
  t.ok(gaps.every((gap) => gap <= snapshotRetryChecksMax + 1), `and never exceeds ${snapshotRetryChecksMax + 1} checks: ${gaps.join(', ')}`)
  t.equal(actor.snapshotSeq, 0, 'no failed write advanced snapshotSeq')

  // A write in flight while more commands land: those count toward the next snapshot, whatever happens to it.
  faults.failing = false
  for (let check = 0; check < snapshotRetryChecksMax + 1 && faults.attempts === attemptsAt.length; check++) runtime.snapshotDue(false)
  t.equal(faults.attempts, attemptsAt.length + 1, 'the retry comes within the bound')
  await post(2)
  await faults.settled()
  t.ok(actor.snapshotSeq > 0 && actor.snapshotSeq < actor.lastAppliedSeq, 'the snapshot stands for the durable seq of its start')
  t.equal(actor.commandsSinceSnapshot, 2, 'the commands after it still count')
  t.equal(runtime.snapshotDue(false), 0, 'and after a success the interval applies again, not the retry')
})
