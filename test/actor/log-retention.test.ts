/**
 * src/actor/log-retention.ts's plan on its own (the live rounds over a real log are test/log/retention.test.ts):
 * where the settings' keep begins (the last durable record always kept); what may go (below both what recovery reads
 * and what the settings keep, recovery reading from the log's start unless the system snapshot and every workspace it
 * holds have snapshots); which snapshots are too old and are named to be written again; and a retention without any
 * setting refused. The live class is checked here only where it must read nothing: a log the settings keep whole.
 */
import t from 'tap'
import { keepFromSeqOf, LogRetention, retentionPlan } from '../../src/actor/log-retention.ts'
import type { Runtime } from '../../src/actor/runtime.ts'
import type { SnapshotSeqs } from '../../src/log/snapshot.ts'

function seqs(system: { seq: number; workspaceIds: string[] } | null, workspaces: Record<string, number>): SnapshotSeqs {
  return { system, workspaces: new Map(Object.entries(workspaces)) }
}

t.test('keepFromSeqOf: the last commandsKept records, and the last durable one whatever the count', async (t) => {
  t.equal(keepFromSeqOf(100, 10), 91, '91..100 are ten records')
  t.equal(keepFromSeqOf(100, 1), 100)
  t.equal(keepFromSeqOf(100, 0), 100, 'zero kept still keeps the last durable record')
  t.equal(keepFromSeqOf(100, 100), 1)
  t.ok(keepFromSeqOf(100, 1_000) <= 1, 'more kept than written: from before the first')
})

t.test('nothing older than the settings keep: delete below the first seq (nothing), no snapshot asked for', async (t) => {
  const snapshots = seqs({ seq: 5, workspaceIds: ['w'] }, { w: 5 })
  t.same(retentionPlan(snapshots, ['w'], 100, 40, 40), { deleteBelowSeq: 40, snapshotWorkspaces: [], snapshotSystem: false })
  t.same(retentionPlan(snapshots, ['w'], 100, 40, 12), { deleteBelowSeq: 40, snapshotWorkspaces: [], snapshotSystem: false })
})

t.test('snapshots past the keep: everything below the keep goes, no snapshot asked for', async (t) => {
  const snapshots = seqs({ seq: 100, workspaceIds: ['a', 'b'] }, { a: 100, b: 120 })
  t.same(retentionPlan(snapshots, ['a', 'b'], 150, 1, 50), { deleteBelowSeq: 50, snapshotWorkspaces: [], snapshotSystem: false })
})

t.test('the oldest snapshot holds the log back: delete below it, name the snapshots too old for the keep', async (t) => {
  const snapshots = seqs({ seq: 140, workspaceIds: ['a', 'b'] }, { a: 130, b: 100 })
  // Recovery starts after the oldest snapshot (b at 100): 101 on must stay. The keep begins at 120: b (101 < 120) is too old, a is not.
  t.same(retentionPlan(snapshots, ['a', 'b'], 150, 1, 120), { deleteBelowSeq: 101, snapshotWorkspaces: ['b'], snapshotSystem: false })
  const systemOld = seqs({ seq: 90, workspaceIds: ['a'] }, { a: 130 })
  t.same(retentionPlan(systemOld, ['a'], 150, 1, 120), { deleteBelowSeq: 91, snapshotWorkspaces: [], snapshotSystem: true })
})

t.test('a snapshot just old enough (its next record is the first kept) is not too old', async (t) => {
  const snapshots = seqs({ seq: 119, workspaceIds: ['a'] }, { a: 119 })
  t.same(retentionPlan(snapshots, ['a'], 150, 1, 120), { deleteBelowSeq: 120, snapshotWorkspaces: [], snapshotSystem: false })
  const oneOlder = seqs({ seq: 119, workspaceIds: ['a'] }, { a: 118 })
  t.same(retentionPlan(oneOlder, ['a'], 150, 1, 120), { deleteBelowSeq: 119, snapshotWorkspaces: ['a'], snapshotSystem: false })
})

t.test('recovery reads from the start when a snapshot is missing: nothing goes, the missing ones are named', async (t) => {
  t.same(retentionPlan(seqs(null, { a: 100 }), ['a', 'b'], 150, 1, 120), { deleteBelowSeq: 1, snapshotWorkspaces: ['a', 'b'], snapshotSystem: true },
    'no system snapshot: b (none) and a (100 < 119) named, and the system')
  const uncovered = seqs({ seq: 140, workspaceIds: ['a', 'b'] }, { a: 140 })
  t.same(retentionPlan(uncovered, ['a', 'b'], 150, 1, 120), { deleteBelowSeq: 1, snapshotWorkspaces: ['b'], snapshotSystem: false },
    'a workspace the system snapshot holds has no snapshot')
})

t.test('a workspace created since the system snapshot, without a snapshot of its own, is named when the floor is below the keep', async (t) => {
  const snapshots = seqs({ seq: 100, workspaceIds: ['a'] }, { a: 100 })
  t.same(retentionPlan(snapshots, ['a', 'new'], 150, 1, 120), { deleteBelowSeq: 101, snapshotWorkspaces: ['a', 'new'], snapshotSystem: true })
  t.same(retentionPlan(snapshots, ['a', 'new'], 150, 1, 90), { deleteBelowSeq: 90, snapshotWorkspaces: [], snapshotSystem: false },
    'the floor past the keep: nothing named')
})

t.test('a retention without a setting is refused', async (t) => {
  const runtime = {} as Runtime
  t.throws(() => new LogRetention(runtime, { commandsKept: null, bytesKept: null, batchRecordsMax: 10, warn: () => {} }), /LOG_RETENTION_COMMANDS or LOG_RETENTION_BYTES/)
})

t.test('a log the settings keep whole: a round reads no snapshot and deletes nothing; after stop no round starts', async (t) => {
  let durableReads = 0
  const log = {
    get durableSeq() { durableReads++; return 10 },
    firstSeq: 1,
    failure: null,
    get root(): never { throw new Error('the snapshot heads were read') },
    removeBelow: () => { throw new Error('a record was deleted') },
  }
  const warnings: string[] = []
  const retention = new LogRetention({ log } as unknown as Runtime, { commandsKept: 50, bytesKept: null, batchRecordsMax: 10, warn: (line) => warnings.push(line) })
  await retention.step()
  t.equal(durableReads, 1, 'one round ran')
  t.equal(retention.deleted, 0)
  t.same(warnings, [])
  await retention.stop()
  await retention.step()
  t.equal(durableReads, 1, 'no round after stop')
})
