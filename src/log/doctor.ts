/** @module The offline log doctor: check every record and snapshot of a stopped data dir, and cut a damaged log back. */

import assert from 'node:assert/strict'
import fs from 'node:fs'
import { open, type RootDatabase } from 'lmdb'
import { decodeRecord, unframe } from './codec.js'
import { RecordStore } from './record-store.js'
import { checkStoreFile } from './store-file.js'

/** Damaged records listed at most; past it only the count grows (a wholly damaged log must not flood the terminal). */
const listedMax = 100

export interface DamagedRecord {
  readonly seq: number
  readonly reason: string
}

export interface SnapshotCheck {
  readonly key: string
  readonly ok: boolean
  readonly reason: string | null
}

export interface VerifyReport {
  readonly records: number
  readonly lastSeq: number
  /** Damaged records (checksum, decoding) and missing seqs, first listedMax of them. */
  readonly damaged: readonly DamagedRecord[]
  readonly damagedCount: number
  readonly snapshots: readonly SnapshotCheck[]
}

export interface TruncateReport {
  readonly removed: number
  readonly exported: number
  readonly exportFile: string
  readonly snapshotsRemoved: number
}

function openStore(logPath: string): RootDatabase {
  // A cut-short file would crash LMDB (SIGBUS); refuse with the same message start-up gives.
  checkStoreFile(logPath)
  if (!fs.existsSync(logPath)) throw new Error(`no log at ${logPath}`)
  return open({ path: logPath, overlappingSync: true, noSync: false, maxDbs: 8 })
}

function recordsOf(root: RootDatabase, logPath: string): RecordStore {
  return new RecordStore(root, logPath)
}

function snapshotsDb(root: RootDatabase) {
  return root.openDB<Buffer, string>({ name: 'snapshots', encoding: 'binary' })
}

/** Every record decoded and checked, every snapshot's frame and checksum checked. Read-only. */
export async function verifyStore(logPath: string): Promise<VerifyReport> {
  const root = openStore(logPath)
  try {
    const damaged: DamagedRecord[] = []
    let damagedCount = 0
    const note = (seq: number, reason: string) => {
      damagedCount++
      if (damaged.length < listedMax) damaged.push({ seq, reason })
    }
    // Records below the retained start were deleted by retention: not missing.
    const store = recordsOf(root, logPath)
    let expected = store.firstSeq
    let records = 0
    for (const { seq, bytes, width } of store.rawFrom(store.firstSeq)) {
      if (seq !== expected) note(expected, `missing (records ${expected}..${seq - 1} are absent)`)
      const read = decodeRecord(seq, bytes, width)
      if (!read.ok) note(seq, read.reason)
      records++
      expected = seq + 1
    }
    const snapshots: SnapshotCheck[] = []
    for (const { key, value } of snapshotsDb(root).getRange({})) {
      const unframed = unframe(Buffer.from(key, 'utf8'), value)
      snapshots.push({ key, ok: unframed.ok, reason: unframed.ok ? null : unframed.reason })
    }
    return { records, lastSeq: expected - 1, damaged, damagedCount, snapshots }
  } finally {
    await root.close()
  }
}

/**
 * Removes record fromSeq and every later one, after writing them (decoded where they still decode,
 * base64 where not) as JSON lines to exportFile; removes every snapshot too, since any of them may
 * include what was removed. The next start replays the remaining log from record 1.
 */
export async function truncateLog(logPath: string, fromSeq: number, exportFile: string): Promise<TruncateReport> {
  assert.ok(Number.isSafeInteger(fromSeq) && fromSeq >= 1, 'fromSeq must be a positive integer')
  const root = openStore(logPath)
  try {
    const log = recordsOf(root, logPath)
    // Every snapshot goes, so the next start replays from record 1: only a log that still has it.
    if (log.firstSeq > 1) throw new Error(`the log begins at record ${log.firstSeq} (retention deleted the records below it): it cannot be cut back and replayed from record 1; restore the data dir from a backup`)
    const snapshots = snapshotsDb(root)
    const file = fs.openSync(exportFile, 'wx', 0o600)
    const seqs: number[] = []
    try {
      for (const { seq, bytes, width } of log.rawFrom(fromSeq)) {
        const read = decodeRecord(seq, bytes, width)
        const line = read.ok ? { seq, record: read.record } : { seq, damaged: read.reason, base64: Buffer.from(bytes).toString('base64') }
        fs.writeSync(file, `${JSON.stringify(line)}\n`)
        seqs.push(seq)
      }
      fs.fsyncSync(file)
    } finally {
      fs.closeSync(file)
    }
    const snapshotKeys = [...snapshots.getKeys({})]
    await root.transaction(() => {
      for (const seq of seqs) log.remove(seq)
      for (const key of snapshotKeys) snapshots.remove(key)
    })
    await root.flushed
    return { removed: seqs.length, exported: seqs.length, exportFile, snapshotsRemoved: snapshotKeys.length }
  } finally {
    await root.close()
  }
}
