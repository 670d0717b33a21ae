/** @module Where the log's records lie in LMDB: the format 2 database (64-bit seqs), format 1's (uint32) read on, and the retained start. */

import assert from 'node:assert/strict'
import type { Database, RootDatabase } from 'lmdb'
import { decodeRecordInPlace, seqMaxOf, type LogRecord, type RecordRead, type SeqWidth } from './codec.js'
import { recordDamaged, recordsMissing, storeUnopenable } from './damage.js'

/**
 * The log's format. 1: records in database `log` keyed by LMDB's uint32 encoding (seqs up to 2^32 - 1,
 * checksum over 4 bytes of seq). 2: records in database `records` keyed by the seq as a number in
 * LMDB's default (ordered-binary) key encoding, which orders doubles numerically and holds every integer
 * up to Number.MAX_SAFE_INTEGER exactly (checksum over 8 bytes of seq); and `log-meta` says the format
 * and the first seq retention kept. A format 1 log opens as is: its records stay in `log` (read there,
 * deleted there by retention) and new records go to `records`, after them. Nothing is copied.
 */
export const logFormat = 2

/** Keys of the `log-meta` database. */
const formatKey = 'format'
/** The first record the log still holds; every record below it was deleted by retention (absent: 1). */
const firstKey = 'first'

/**
 * The value decoder of a read handle. LMDB hands a decoder its shared read buffer, valid until the next
 * read, instead of copying each value into a new Buffer (at a million records, the copies and their
 * off-heap backing stores cost more than the checksums). The checksum covers the record's seq, which a
 * decoder is not given: the reader sets `seq` to the key it expects next, and checks the key it got
 * against the same number before it looks at the result.
 */
class InPlaceRecordReader {
  seq = 0
  readonly needsStableBuffer = false
  readonly #width: SeqWidth

  constructor(width: SeqWidth) {
    this.#width = width
  }

  decode(bytes: Uint8Array, size?: number): RecordRead {
    // lmdb-js passes the value's size: its shared buffer is longer than the value (and says so through its own `length`).
    return decodeRecordInPlace(this.seq, bytes, size ?? bytes.length, this.#width)
  }

  encode(): never {
    throw new Error('the log read handle does not write')
  }
}

/** A value decoder that gives only the stored size: a record's bytes counted without a copy or a check (retention by bytes). */
const sizeOnly = {
  needsStableBuffer: false,
  decode: (bytes: Uint8Array, size?: number): number => size ?? bytes.length,
  encode(): never {
    throw new Error('the size handle does not write')
  },
}

/** One of the two record databases: the handle that writes and removes, one that reads in place, and one that reads sizes. */
interface Segment {
  readonly width: SeqWidth
  readonly records: Database<Buffer, number>
  readonly read: Database<RecordRead, number>
  readonly reader: InPlaceRecordReader
  readonly sizes: Database<number, number>
}

function openSegment(root: RootDatabase, name: string, width: SeqWidth): Segment {
  const keyEncoding = width === 4 ? 'uint32' as const : undefined
  const reader = new InPlaceRecordReader(width)
  // `encoder` (lmdb-js's own encoder/decoder option) is missing from its DatabaseOptions type.
  const readOptions = { name, keyEncoding, encoder: reader }
  return {
    width, reader,
    records: root.openDB<Buffer, number>({ name, keyEncoding, encoding: 'binary' }),
    read: root.openDB<RecordRead, number>(readOptions),
    sizes: root.openDB<number, number>({ name, keyEncoding, encoder: sizeOnly } as { name: string }),
  }
}

function lastKeyOf(db: Database<Buffer, number>): number {
  for (const key of db.getKeys({ reverse: true, limit: 1 })) return key
  return 0
}

function firstKeyOf(db: Database<Buffer, number>): number {
  for (const key of db.getKeys({ limit: 1 })) return key
  return 0
}

export class RecordStore {
  readonly #root: RootDatabase
  readonly #path: string
  readonly #current: Segment
  /** Format 1's records, all below the current segment's; empty in a log begun by format 2. */
  readonly #legacy: Segment
  readonly #legacyLastSeq: number
  readonly #meta: Database<number, string>
  #firstSeq: number
  /** The last seq on disk when opened. */
  readonly lastSeqAtOpen: number

  constructor(root: RootDatabase, path: string) {
    this.#root = root
    this.#path = path
    this.#current = openSegment(root, 'records', 8)
    this.#legacy = openSegment(root, 'log', 4)
    this.#meta = root.openDB<number, string>({ name: 'log-meta' })
    const format = this.#meta.get(formatKey) ?? 1
    if (!(Number.isSafeInteger(format) && format >= 1 && format <= logFormat)) {
      throw storeUnopenable(path, `the log is in format ${String(format)}, written by a newer trueup (this one reads formats 1..${logFormat})`)
    }
    this.#firstSeq = this.#meta.get(firstKey) ?? 1
    this.#legacyLastSeq = lastKeyOf(this.#legacy.records)
    const currentFirstSeq = firstKeyOf(this.#current.records)
    if (currentFirstSeq !== 0 && currentFirstSeq <= this.#legacyLastSeq) {
      throw storeUnopenable(path, `format 1 records run to ${this.#legacyLastSeq} but format 2 records begin at ${currentFirstSeq}`)
    }
    // A log emptied by retention down to nothing still remembers where it was: seqs are never reused.
    this.lastSeqAtOpen = Math.max(lastKeyOf(this.#current.records), this.#legacyLastSeq, this.#firstSeq - 1)
  }

  /** Marks the log as format 2 (once, on the first open by this code; a read-only open never calls it). */
  markFormat(): void {
    if (this.#meta.get(formatKey) !== logFormat) this.#meta.putSync(formatKey, logFormat)
  }

  /** The first seq the log holds; those below were deleted by retention. */
  get firstSeq(): number { return this.#firstSeq }

  /**
   * An empty log made to begin at firstSeq, as retention would leave it (a data dir converted to shards, whose
   * snapshots stand for every record before): seqs carry on where the old log's ended, never reused.
   */
  beginAt(firstSeq: number): void {
    assert.ok(this.lastSeqAtOpen === 0 && this.#firstSeq === 1 && Number.isSafeInteger(firstSeq) && firstSeq >= 1, 'only an empty log is begun at a seq')
    this.#meta.putSync(firstKey, firstSeq)
    this.#firstSeq = firstSeq
  }

  /** Within a write transaction: record seq in format 2. */
  put(seq: number, bytes: Buffer): void {
    assert.ok(seq > this.#legacyLastSeq && seq <= seqMaxOf(8))
    this.#current.records.put(seq, bytes)
  }

  /**
   * Every record from seq to lastSeq, in order, each checked: a damaged record or a missing seq throws
   * StoreDamaged naming the seq. One start-up read at a time: the readers are shared.
   */
  *readFrom(seq: number, lastSeq: number): Generator<{ seq: number; record: LogRecord }> {
    assert.ok(seq >= this.#firstSeq, `records below ${this.#firstSeq} were deleted by retention`)
    let expected = seq
    for (const segment of [this.#legacy, this.#current]) {
      if (segment === this.#legacy && expected > this.#legacyLastSeq) continue
      const { reader } = segment
      reader.seq = expected
      for (const { key, value: read } of segment.read.getRange({ start: expected })) {
        if (key !== expected) throw recordsMissing(this.#path, expected, key)
        if (!read.ok) throw recordDamaged(this.#path, key, read.reason)
        expected++
        yield { seq: key, record: read.record }
        // Set again after the pause, right before the loop reads the next value (the reader is shared).
        reader.seq = expected
      }
    }
    if (expected <= lastSeq) throw recordsMissing(this.#path, expected, null)
  }

  /** The stored size in bytes of each record from seq to toSeq, countMax at most, in order (not checked: counted, not trusted). */
  *sizesFrom(seq: number, toSeq: number, countMax: number): Generator<{ seq: number; bytes: number }> {
    let count = 0
    for (const segment of [this.#legacy, this.#current]) {
      if (segment === this.#legacy && seq > this.#legacyLastSeq) continue
      for (const { key, value } of segment.sizes.getRange({ start: seq, end: toSeq + 1 })) {
        if (count++ >= countMax) return
        yield { seq: key, bytes: value }
      }
    }
  }

  /** Every stored record from seq on, as stored (a copy), with the width its checksum covers: for the offline doctor. */
  *rawFrom(seq: number): Generator<{ seq: number; bytes: Buffer; width: SeqWidth }> {
    for (const segment of [this.#legacy, this.#current]) {
      for (const { key, value } of segment.records.getRange({ start: seq })) yield { seq: key, bytes: value, width: segment.width }
    }
  }

  /** Within a write transaction: removes record seq from whichever segment holds it. */
  remove(seq: number): void {
    if (seq <= this.#legacyLastSeq) this.#legacy.records.remove(seq)
    else this.#current.records.remove(seq)
  }

  /**
   * Deletes records firstSeq..belowSeq-1, recordsMax at most, in one write transaction that also moves
   * the retained start, so a crash keeps either both or neither. Returns how many it deleted.
   */
  async removeBelow(belowSeq: number, recordsMax: number): Promise<number> {
    const fromSeq = this.#firstSeq
    const toSeq = Math.min(belowSeq, fromSeq + recordsMax)
    if (toSeq <= fromSeq) return 0
    await this.#root.transaction(() => {
      for (let seq = fromSeq; seq < toSeq; seq++) this.remove(seq)
      this.#meta.put(firstKey, toSeq)
    })
    this.#firstSeq = toSeq
    return toSeq - fromSeq
  }
}
