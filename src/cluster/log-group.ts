/**
 * @module One row of the replicated log in PostgreSQL holds one group commit (docs/CLUSTER.md, "One row per group
 * commit"): `seq` is the group's last seq, `count` its number of records, `record` the records framed. A group of one
 * is the record itself, so a row written before groups (one per record, count 1 by the column's default) reads as a
 * group of one; a larger group is each record as its length (4 bytes, big-endian) then its bytes. The framing is
 * checked when split: a row whose lengths do not add up to its bytes, or to its count, is refused, never cut.
 */

/** A record of the log, as the readers of src/cluster/pg-log.ts get it: its seq, the epoch that wrote it, its bytes. */
export interface LogRecord {
  readonly seq: number
  readonly epoch: number
  readonly record: Buffer
}

/** One row as PostgreSQL hands it over (bigint columns as text). */
export interface GroupRow {
  readonly seq: string | number
  readonly epoch: string | number
  readonly count: number
  readonly record: Buffer
}

/** The length before each record of a group of more than one. */
const lengthBytes = 4

/** The group's records as one buffer: a single record as itself, several each after its length. */
export function frameGroup(records: readonly Uint8Array[]): Buffer {
  if (records.length === 1) return viewOf(records[0])
  let total = 0
  for (const record of records) total += lengthBytes + record.byteLength
  const framed = Buffer.allocUnsafe(total)
  let offset = 0
  for (const record of records) {
    framed.writeUInt32BE(record.byteLength, offset)
    framed.set(record, offset + lengthBytes)
    offset += lengthBytes + record.byteLength
  }
  return framed
}

/** The records of one row, in order; views into its bytes. */
export function splitGroup(framed: Buffer, count: number): Buffer[] {
  if (count === 1) return [framed]
  if (!Number.isInteger(count) || count < 1) throw new Error(`a log row holding ${count} records`)
  const records: Buffer[] = []
  let offset = 0
  while (offset < framed.length) {
    if (offset + lengthBytes > framed.length) throw new Error(`a log row of ${count} records cut inside a length, at byte ${offset} of ${framed.length}`)
    const length = framed.readUInt32BE(offset)
    const end = offset + lengthBytes + length
    if (end > framed.length) throw new Error(`a log row of ${count} records cut inside a record, at byte ${offset} of ${framed.length}`)
    records.push(framed.subarray(offset + lengthBytes, end))
    offset = end
  }
  if (records.length !== count) throw new Error(`a log row said to hold ${count} records holds ${records.length}`)
  return records
}

/**
 * The records of rows (in seq order) after `afterSeq`, at most `limit` of them: the records of a group at or below
 * afterSeq are skipped (a reader's position may fall inside a group), and a page may end inside a group.
 */
export function recordsOfRows(rows: readonly GroupRow[], afterSeq: number, limit: number): LogRecord[] {
  const records: LogRecord[] = []
  for (const row of rows) {
    const lastSeq = Number(row.seq)
    const epoch = Number(row.epoch)
    const firstSeq = lastSeq - row.count + 1
    const split = splitGroup(row.record, row.count)
    for (let index = Math.max(0, afterSeq + 1 - firstSeq); index < split.length; index++) {
      if (records.length >= limit) return records
      records.push({ seq: firstSeq + index, epoch, record: split[index] })
    }
  }
  return records
}

function viewOf(record: Uint8Array): Buffer {
  return Buffer.isBuffer(record) ? record : Buffer.from(record.buffer, record.byteOffset, record.byteLength)
}
