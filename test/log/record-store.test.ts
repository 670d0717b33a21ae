/**
 * Tests for where the log's records lie (src/log/record-store.ts), on LMDB files opened here: the format mark,
 * records written and read back in order, a damaged record and a missing seq named, sizes, retention's
 * removeBelow moving the retained start in the same transaction, beginAt, a format newer than this code, and a
 * format 1 log (test/fixtures/log-format-1) read on with format 2 records after it.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { open, type RootDatabase } from 'lmdb'
import t from 'tap'
import { encodeRecord, type LogRecord } from '../../src/log/codec.ts'
import { StoreDamaged } from '../../src/log/damage.ts'
import { logFormat, RecordStore } from '../../src/log/record-store.ts'

type Tap = Parameters<Parameters<typeof t.test>[0]>[0]

const fixtureLog = path.join(import.meta.dirname, '..', 'fixtures', 'log-format-1', 'log')
const fixtureLastSeq = (JSON.parse(fs.readFileSync(path.join(fixtureLog, '..', 'expected.json'), 'utf8')) as { lastSeq: number }).lastSeq

const record = (n: number): LogRecord => ({ v: 1, workspace: 'w', command: { type: 'account.create', at_ms: n, key_id: 'k', visibility: null, name: `a${n}`, tags: [] } })

/** A log dir (empty, or a copy of the format 1 fixture), opened; closed and removed at the test's end. */
function opened(t: Tap, fromFixture = false): { root: RootDatabase, logPath: string, reopen: () => Promise<RecordStore> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-record-store-'))
  const logPath = path.join(dir, 'log')
  if (fromFixture) fs.cpSync(fixtureLog, logPath, { recursive: true })
  const state = { root: open({ path: logPath, maxDbs: 8 }) }
  t.teardown(async () => {
    await state.root.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const reopen = async () => {
    await state.root.close()
    state.root = open({ path: logPath, maxDbs: 8 })
    return new RecordStore(state.root, logPath)
  }
  return { get root() { return state.root }, logPath, reopen }
}

async function putAll(root: RootDatabase, store: RecordStore, seqs: readonly number[], bytesOf = (seq: number) => encodeRecord(seq, record(seq))): Promise<void> {
  await root.transaction(() => { for (const seq of seqs) store.put(seq, bytesOf(seq)) })
}

function thrown(run: () => unknown): StoreDamaged {
  try {
    run()
  } catch (error) {
    return error as StoreDamaged
  }
  throw new Error('nothing thrown')
}

t.test('an empty log: nothing held, format marked once, records read back in order from any seq', async (t) => {
  const log = opened(t)
  const store = new RecordStore(log.root, log.logPath)
  t.equal(store.lastSeqAtOpen, 0)
  t.equal(store.firstSeq, 1)
  store.markFormat()
  t.equal(log.root.openDB<number, string>({ name: 'log-meta' }).get('format'), logFormat)
  await putAll(log.root, store, [1, 2, 3])
  t.same([...store.readFrom(1, 3)], [1, 2, 3].map((seq) => ({ seq, record: record(seq) })))
  t.same([...store.readFrom(2, 3)].map(({ seq }) => seq), [2, 3])
  t.same([...store.readFrom(4, 3)], [], 'from past the end: nothing')
  const again = await log.reopen()
  t.equal(again.lastSeqAtOpen, 3)
})

t.test('readFrom: a record stored under another seq is damaged; a missing seq, inside or at the end, is a gap', async (t) => {
  const log = opened(t)
  const store = new RecordStore(log.root, log.logPath)
  await putAll(log.root, store, [1, 2, 4], (seq) => encodeRecord(seq === 2 ? 5 : seq, record(seq)))
  const damaged = thrown(() => [...store.readFrom(1, 4)])
  t.equal(damaged.kind, 'log_record')
  t.equal(damaged.seq, 2)
  const gap = thrown(() => [...store.readFrom(3, 4)])
  t.equal(gap.kind, 'log_gap')
  t.equal(gap.seq, 3)
  const end = thrown(() => [...store.readFrom(4, 5)])
  t.equal(end.kind, 'log_gap', 'one record fewer than the last seq says')
  t.equal(end.seq, 5)
})

t.test('sizesFrom: each stored size, within toSeq and countMax', async (t) => {
  const log = opened(t)
  const store = new RecordStore(log.root, log.logPath)
  await putAll(log.root, store, [1, 2, 3, 4])
  const sizes = [1, 2, 3, 4].map((seq) => ({ seq, bytes: encodeRecord(seq, record(seq)).length }))
  t.same([...store.sizesFrom(1, 4, 10)], sizes)
  t.same([...store.sizesFrom(2, 3, 10)], sizes.slice(1, 3), 'toSeq included, nothing past it')
  t.same([...store.sizesFrom(1, 4, 2)], sizes.slice(0, 2), 'countMax')
  t.same([...store.sizesFrom(1, 4, 0)], [])
})

t.test('removeBelow: at most recordsMax from the retained start, which moves with them and is kept on reopen', async (t) => {
  const log = opened(t)
  const store = new RecordStore(log.root, log.logPath)
  await putAll(log.root, store, [1, 2, 3, 4, 5])
  t.equal(await store.removeBelow(1, 10), 0, 'nothing below 1')
  t.equal(await store.removeBelow(5, 2), 2, 'two at most')
  t.equal(store.firstSeq, 3)
  t.equal(await store.removeBelow(5, 10), 2)
  t.equal(store.firstSeq, 5)
  t.same([...store.readFrom(5, 5)].map(({ seq }) => seq), [5])
  t.throws(() => [...store.readFrom(4, 5)], /records below 5 were deleted by retention/)
  t.equal(await store.removeBelow(6, 10), 1, 'the last record too')
  const again = await log.reopen()
  t.equal(again.firstSeq, 6)
  t.equal(again.lastSeqAtOpen, 5, 'a log emptied by retention remembers where it was')
})

t.test('beginAt: an empty log begins at a later seq (kept on reopen); a log with records is not begun again', async (t) => {
  const log = opened(t)
  const store = new RecordStore(log.root, log.logPath)
  t.throws(() => store.beginAt(0))
  store.beginAt(100)
  t.equal(store.firstSeq, 100)
  const again = await log.reopen()
  t.equal(again.firstSeq, 100)
  t.equal(again.lastSeqAtOpen, 99)
  t.throws(() => again.beginAt(200), /only an empty log is begun at a seq/)
  await putAll(log.root, again, [100])
  t.same([...again.readFrom(100, 100)].map(({ seq }) => seq), [100])
})

t.test('a log in a format newer than this code is refused', async (t) => {
  const log = opened(t)
  await log.root.openDB<number, string>({ name: 'log-meta' }).put('format', logFormat + 1)
  const refused = thrown(() => new RecordStore(log.root, log.logPath))
  t.equal(refused.kind, 'store_unopenable')
  t.match(refused.message, `the log is in format ${logFormat + 1}, written by a newer trueup`)
})

t.test('format 1: read on, new records after it in format 2, read as one log; removal finds either segment', async (t) => {
  const log = opened(t, true)
  const store = new RecordStore(log.root, log.logPath)
  t.equal(store.lastSeqAtOpen, fixtureLastSeq)
  const next = fixtureLastSeq + 1
  await putAll(log.root, store, [next])
  const all = [...store.readFrom(1, next)]
  t.equal(all.length, next)
  t.same(all.at(-1), { seq: next, record: record(next) })
  t.same([...store.rawFrom(fixtureLastSeq)].map(({ seq, width }) => [seq, width]), [[fixtureLastSeq, 4], [next, 8]], 'each with the width its checksum covers')
  t.equal(await store.removeBelow(3, 10), 2, 'retention deletes format 1 records where they are')
  await log.root.transaction(() => {
    store.remove(next)
    store.remove(fixtureLastSeq)
  })
  t.same([...store.rawFrom(fixtureLastSeq - 1)].map(({ seq }) => seq), [fixtureLastSeq - 1], 'the last of each segment removed')
  const again = await log.reopen()
  t.equal(again.firstSeq, 3)
  t.equal(again.lastSeqAtOpen, fixtureLastSeq - 1)
  t.same([...again.readFrom(3, fixtureLastSeq - 1)].map(({ seq }) => seq), Array.from({ length: fixtureLastSeq - 3 }, (_, i) => i + 3))
})

t.test('format 2 records that begin inside format 1\'s are refused', async (t) => {
  const log = opened(t, true)
  await log.root.openDB<Buffer, number>({ name: 'records', encoding: 'binary' }).put(fixtureLastSeq, encodeRecord(fixtureLastSeq, record(1)))
  const refused = thrown(() => new RecordStore(log.root, log.logPath))
  t.equal(refused.kind, 'store_unopenable')
  t.match(refused.message, `format 1 records run to ${fixtureLastSeq} but format 2 records begin at ${fixtureLastSeq}`)
})
