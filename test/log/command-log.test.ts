/**
 * The group commit of CommandLog (src/log/command-log.ts), driven directly: records appended while a batch is in
 * flight form the next batch; every reply is released in seq order and only once its own record is durable; a
 * failed flush fails its batch and every later one, never an earlier one, and the log refuses appends after it.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { CommandLog, type CommitFaults } from '../../src/log/command-log.ts'
import { encodeRecord, type LogRecord } from '../../src/log/codec.ts'

const roots: string[] = []
t.teardown(() => { for (const dir of roots) fs.rmSync(dir, { recursive: true, force: true }) })

function openLog(faults?: CommitFaults, dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-log-'))): CommandLog {
  roots.push(dir)
  return new CommandLog({ path: path.join(dir, 'log'), groupCommitRecordsMax: 64, pendingRecordsMax: 10_000, faults })
}

const record = (i: number): LogRecord => ({ v: 1, workspace: 'default', command: { type: 'account.create', at_ms: i, name: `assets:a${i}`, tags: [] } as never })

interface Outcome { readonly seq: number; readonly error: Error | null; readonly durableSeq: number }

/** Appends `count` records a few per event-loop turn, so batches form while earlier ones are in flight. */
async function appendInTurns(log: CommandLog, count: number, outcomes: Outcome[]): Promise<void> {
  for (let i = 1; i <= count; i++) {
    if (!log.canAppend()) break
    const seq = log.append(record(i))
    log.afterDurable(seq, (error) => outcomes.push({ seq, error, durableSeq: log.durableSeq }))
    if (i % 7 === 0) await new Promise((resolve) => setImmediate(resolve))
  }
  await log.idle()
}

t.test('replies come in seq order, each once its record is durable, and all of them are there after a reopen', async (t) => {
  const batches: { firstSeq: number; lastSeq: number }[] = []
  // The flush seam runs once per batch, right after its transaction: it names the batches.
  const faults: CommitFaults = { flush: (firstSeq, lastSeq) => { batches.push({ firstSeq, lastSeq }) } }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-log-'))
  const log = openLog(faults, dir)
  const outcomes: Outcome[] = []
  await appendInTurns(log, 2_000, outcomes)
  t.equal(outcomes.length, 2_000, 'every append got its answer')
  t.same(outcomes.map((outcome) => outcome.seq), Array.from({ length: 2_000 }, (_, i) => i + 1), 'in seq order')
  t.ok(outcomes.every((outcome) => outcome.error === null), 'none failed')
  t.ok(outcomes.every((outcome) => outcome.durableSeq >= outcome.seq), 'none before its record was durable')
  t.ok(batches.every((batch, i) => i === 0 || batch.firstSeq === batches[i - 1].lastSeq + 1), 'batches are contiguous')
  t.ok(batches.length > 1 && batches.length < 2_000, `group commit: ${batches.length} batches for 2,000 records`)
  t.ok(batches.every((batch) => batch.lastSeq - batch.firstSeq < 64), 'none over groupCommitRecordsMax')
  await log.close()
  const reopened = openLog(undefined, dir)
  t.equal(reopened.lastSeq, 2_000, 'the reopened log holds every record')
  const wrong: number[] = []
  let expected = 1
  for (const { seq, record: read } of reopened.readFrom(1)) {
    if (seq !== expected || (read.command as { name: string }).name !== `assets:a${seq}`) wrong.push(seq)
    expected++
  }
  t.same(wrong, [], 'each record is the one appended, in order')
  await reopened.close()
})

t.test('a failed flush fails its batch and every later one, never an earlier one, and the log refuses appends', async (t) => {
  const failAtSeq = 500
  let failedBatchFirstSeq = 0
  const faults: CommitFaults = {
    flush: (firstSeq, lastSeq) => {
      if (lastSeq < failAtSeq) return
      if (failedBatchFirstSeq === 0) failedBatchFirstSeq = firstSeq
      throw new Error('EIO: fsync failed (injected)')
    },
  }
  const log = openLog(faults)
  const outcomes: Outcome[] = []
  await appendInTurns(log, 2_000, outcomes)
  t.ok(failedBatchFirstSeq > 0 && failedBatchFirstSeq <= failAtSeq, `the batch holding seq ${failAtSeq} starts at ${failedBatchFirstSeq}`)
  const before = outcomes.filter((outcome) => outcome.seq < failedBatchFirstSeq)
  const after = outcomes.filter((outcome) => outcome.seq >= failedBatchFirstSeq)
  t.equal(before.length, failedBatchFirstSeq - 1, 'every record before the failed batch was answered')
  t.ok(before.every((outcome) => outcome.error === null && outcome.durableSeq >= outcome.seq), 'all of them durable')
  t.ok(after.length > 0 && after.every((outcome) => outcome.error !== null), `the ${after.length} from the failed batch on got the error`)
  t.match(after[0].error!.message, /commit of log records \d+\.\.\d+ failed: EIO: fsync failed \(injected\)/)
  t.ok(log.durableSeq < failedBatchFirstSeq, `nothing of the failed batch counts as durable (durable up to ${log.durableSeq})`)
  t.notOk(log.canAppend(), 'the log refuses appends from then on')
  const late: (Error | null)[] = []
  log.afterDurable(log.lastSeq, (error) => late.push(error))
  t.equal(late.length, 1)
  t.ok(late[0] instanceof Error, 'a wait asked for after the failure gets the failure at once')
  await log.close()
})

t.test('a reply is released once its own seq is durable, not behind one registered earlier for a later seq', async (t) => {
  const log = openLog()
  const released: { name: string; durableSeq: number }[] = []
  // One turn, 100 records: the group commit takes them as two batches (at most 64 each).
  for (let i = 1; i <= 100; i++) log.append(record(i))
  // A write of one workspace waits for seq 100; then a read of another, whose barrier is seq 3.
  log.afterDurable(100, () => released.push({ name: 'write at 100', durableSeq: log.durableSeq }))
  log.afterDurable(3, () => released.push({ name: 'read at 3', durableSeq: log.durableSeq }))
  log.afterDurable(3, () => released.push({ name: 'second read at 3', durableSeq: log.durableSeq }))
  log.afterDurable(3, () => released.push({ name: 'third read at 3', durableSeq: log.durableSeq }))
  await log.idle()
  t.same(released.map((each) => each.name), ['read at 3', 'second read at 3', 'third read at 3', 'write at 100'], 'in seq order, and in registration order within a seq (one, two, three waiting)')
  const read = released.find((each) => each.name === 'read at 3')!
  t.ok(read.durableSeq < 100, `the read went out with the first batch (durable up to ${read.durableSeq}), not after seq 100`)
  t.ok(released.every((each) => each.durableSeq >= Number(each.name.split(' at ')[1])), 'none before its seq was durable')
  await log.close()
})

t.test('a lone writer is answered after one commit of its own record: no timer, no waiting for a batch to fill', async (t) => {
  const commits: { firstSeq: number; lastSeq: number }[] = []
  const log = openLog({ flush: (firstSeq, lastSeq) => { commits.push({ firstSeq, lastSeq }) } })
  const seen: { seq: number; commitsAtReply: number; durableSeq: number }[] = []
  for (let i = 1; i <= 20; i++) {
    const commitsBefore = commits.length
    const seq = log.append(record(i))
    await new Promise<void>((resolve) => log.afterDurable(seq, () => {
      seen.push({ seq, commitsAtReply: commits.length - commitsBefore, durableSeq: log.durableSeq })
      resolve()
    }))
  }
  t.same(seen.map((each) => each.commitsAtReply), Array.from({ length: 20 }, () => 1), 'each reply came after exactly one commit')
  t.same(commits, Array.from({ length: 20 }, (_, i) => ({ firstSeq: i + 1, lastSeq: i + 1 })), 'and that commit held the one record, nothing else')
  t.ok(seen.every((each) => each.durableSeq === each.seq), 'each reply once its own record was durable')
  await log.close()
})

t.test('the next batch goes to LMDB before the replies of the one just flushed go out', async (t) => {
  const started: { firstSeq: number; lastSeq: number }[] = []
  let log: CommandLog | null = null
  const faults: CommitFaults = {
    transaction: (firstSeq, lastSeq) => {
      started.push({ firstSeq, lastSeq })
      // Records that arrive while the first batch is in flight: they form the second batch.
      if (firstSeq === 1) for (let i = 2; i <= 4; i++) log!.append(record(i))
    },
  }
  log = openLog(faults)
  const startedAtReply: number[][] = []
  const seq = log.append(record(1))
  for (let each = 1; each <= 4; each++) log.afterDurable(each, () => startedAtReply.push(started.map((batch) => batch.firstSeq)))
  await log.idle()
  t.equal(seq, 1)
  t.same(started, [{ firstSeq: 1, lastSeq: 1 }, { firstSeq: 2, lastSeq: 4 }], 'two batches: the first record, then the three that came meanwhile')
  t.same(startedAtReply[0], [1, 2], 'when the first reply went out, the second batch had already been handed over')
  t.equal(startedAtReply.length, 4, 'every reply went out')
  t.equal(log.durableSeq, 4)
  await log.close()
})

t.test('dropAfter: a log standing by loses its records past a seq, and what alsoRemove removes, in one transaction, for good', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-log-'))
  const log = openLog(undefined, dir)
  for (let i = 1; i <= 5; i++) log.append(record(i))
  await log.idle()
  await log.sideDb('outbox').put('kept', Buffer.from('k'))
  await log.sideDb('outbox').put('dropped', Buffer.from('d'))
  await t.rejects(log.dropAfter(3, () => undefined), 'a log that is not standing by drops nothing')
  log.standBy(new Error('another node owns the shard'))
  const dropped = await log.dropAfter(3, () => { void log.sideDb('outbox').remove('dropped') })
  t.equal(dropped, 2, 'records 4 and 5')
  t.same([log.lastSeq, log.durableSeq, log.recordBytes(4)], [3, 3, null], 'the log ends at 3')
  await log.close()
  const reopened = openLog(undefined, dir)
  t.equal(reopened.lastSeq, 3, 'and so it does once reopened')
  t.same([...reopened.readFrom(1)].map(({ seq }) => seq), [1, 2, 3])
  t.same([...reopened.sideDb('outbox').getKeys({})], ['kept'], 'with the side removal of the same transaction')
  reopened.standBy(new Error('another node owns the shard'))
  const followed = encodeRecord(4, record(40))
  await reopened.appendFollowed(4, [followed])
  t.ok(reopened.recordBytes(4)?.equals(followed), 'the next record followed goes at seq 4')
  await reopened.close()
})
