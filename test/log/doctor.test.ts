/**
 * Tests for the offline log doctor (src/log/doctor.ts) on LMDB files written here: verifyStore's count, damaged
 * records and gaps (listed up to 100, all counted), records retention deleted not reported, snapshots checked;
 * truncateLog exporting every record from a seq (decoded, or base64 when damaged) then removing them and every
 * snapshot, and refusing (changing nothing) an export file that exists, a log begun past 1, a bad seq.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { open } from 'lmdb'
import t from 'tap'
import { encodeRecord, encodeValue, frame, type LogRecord } from '../../src/log/codec.ts'
import { truncateLog, verifyStore } from '../../src/log/doctor.ts'
import { RecordStore } from '../../src/log/record-store.ts'

type Tap = Parameters<Parameters<typeof t.test>[0]>[0]

const record = (n: number): LogRecord => ({ v: 1, workspace: 'w', command: { type: 'account.create', at_ms: n, key_id: 'k', visibility: null, name: `a${n}`, tags: [] } })

interface Layout {
  /** Seqs stored; those in `misplaced` get the bytes of another seq (a checksum mismatch). */
  readonly seqs: readonly number[]
  readonly misplaced?: readonly number[]
  /** Snapshot keys; those in `badSnapshots` framed under another key. */
  readonly snapshots?: readonly string[]
  readonly badSnapshots?: readonly string[]
  readonly removeBelow?: number
}

/** A stopped data dir's log written as laid out; returns its path (removed at the test's end). */
async function logOf(t: Tap, layout: Layout): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-doctor-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  const logPath = path.join(dir, 'log')
  const root = open({ path: logPath, maxDbs: 8 })
  const store = new RecordStore(root, logPath)
  const snapshots = root.openDB<Buffer, string>({ name: 'snapshots', encoding: 'binary' })
  await root.transaction(() => {
    for (const seq of layout.seqs) store.put(seq, encodeRecord(layout.misplaced?.includes(seq) === true ? seq + 1_000 : seq, record(seq)))
    for (const key of layout.snapshots ?? []) snapshots.put(key, frame(Buffer.from(layout.badSnapshots?.includes(key) === true ? `${key}-other` : key, 'utf8'), encodeValue({ key })))
  })
  if (layout.removeBelow !== undefined) await store.removeBelow(layout.removeBelow, 1_000)
  await root.close()
  return logPath
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

t.test('verifyStore: a sound log, every record and snapshot checked', async (t) => {
  const logPath = await logOf(t, { seqs: range(1, 5), snapshots: ['system', 'workspace:w'] })
  t.same(await verifyStore(logPath), {
    records: 5, lastSeq: 5, damaged: [], damagedCount: 0,
    snapshots: [{ key: 'system', ok: true, reason: null }, { key: 'workspace:w', ok: true, reason: null }],
  })
})

t.test('verifyStore: a record under another seq and a gap are named; a damaged snapshot too', async (t) => {
  const logPath = await logOf(t, { seqs: [1, 2, 3, 6, 7], misplaced: [2], snapshots: ['a', 'b'], badSnapshots: ['b'] })
  const report = await verifyStore(logPath)
  t.equal(report.records, 5)
  t.equal(report.lastSeq, 7)
  t.equal(report.damagedCount, 2)
  t.equal(report.damaged[0].seq, 2)
  t.match(report.damaged[0].reason, /checksum/)
  t.same(report.damaged[1], { seq: 4, reason: 'missing (records 4..5 are absent)' })
  t.same(report.snapshots.map(({ key, ok }) => [key, ok]), [['a', true], ['b', false]])
  t.ok(report.snapshots[1].reason !== null && report.snapshots[1].reason.length > 0)
})

t.test('verifyStore: at most 100 listed, all counted', async (t) => {
  const seqs = range(1, 130)
  const report = await verifyStore(await logOf(t, { seqs, misplaced: seqs.slice(0, 120) }))
  t.equal(report.damagedCount, 120)
  t.equal(report.damaged.length, 100)
  t.equal(report.damaged[99].seq, 100)
})

t.test('verifyStore: records retention deleted are not missing', async (t) => {
  const report = await verifyStore(await logOf(t, { seqs: range(1, 6), removeBelow: 4 }))
  t.same([report.records, report.lastSeq, report.damagedCount], [3, 6, 0])
})

t.test('verifyStore: no log, or a data file cut short, is refused', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-doctor-'))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  await t.rejects(verifyStore(path.join(dir, 'none')), /^no log at /)
  const logPath = await logOf(t, { seqs: range(1, 3) })
  const dataFile = path.join(logPath, 'data.mdb')
  fs.truncateSync(dataFile, 100)
  await t.rejects(verifyStore(logPath), { name: 'StoreDamaged', kind: 'store_file' })
})

t.test('truncateLog: records from the seq exported (decoded, or base64 when damaged), removed with every snapshot', async (t) => {
  const logPath = await logOf(t, { seqs: range(1, 5), misplaced: [4], snapshots: ['system', 'workspace:w'] })
  const exportFile = path.join(path.dirname(logPath), 'cut.jsonl')
  t.same(await truncateLog(logPath, 3, exportFile), { removed: 3, exported: 3, exportFile, snapshotsRemoved: 2 })
  const lines = fs.readFileSync(exportFile, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line))
  t.same(lines[0], { seq: 3, record: record(3) })
  t.equal(lines[1].seq, 4)
  t.match(lines[1].damaged, /checksum/)
  t.same(Buffer.from(lines[1].base64, 'base64'), encodeRecord(1_004, record(4)), 'the stored bytes as they were')
  t.same(lines[2], { seq: 5, record: record(5) })
  t.equal(fs.statSync(exportFile).mode & 0o777, 0o600)
  const after = await verifyStore(logPath)
  t.same([after.records, after.lastSeq, after.damagedCount, after.snapshots.length], [2, 2, 0, 0])
})

t.test('truncateLog refuses, changing nothing: an export file that exists, a log begun past record 1, a seq below 1', async (t) => {
  const logPath = await logOf(t, { seqs: range(1, 3), snapshots: ['s'] })
  const exportFile = path.join(path.dirname(logPath), 'exists.jsonl')
  fs.writeFileSync(exportFile, 'keep')
  await t.rejects(truncateLog(logPath, 2, exportFile), { code: 'EEXIST' })
  t.equal(fs.readFileSync(exportFile, 'utf8'), 'keep')
  await t.rejects(truncateLog(logPath, 0, path.join(path.dirname(logPath), 'zero.jsonl')), /fromSeq must be a positive integer/)
  const before = await verifyStore(logPath)
  t.same([before.records, before.snapshots.length], [3, 1], 'nothing removed')
  const retained = await logOf(t, { seqs: range(1, 4), removeBelow: 3 })
  const other = path.join(path.dirname(retained), 'cut.jsonl')
  await t.rejects(truncateLog(retained, 3, other), /the log begins at record 3/)
  t.notOk(fs.existsSync(other), 'no export written')
  t.equal((await verifyStore(retained)).records, 2)
})
