/** @module The log's record format: msgpackr-packed, versioned, checksummed, checked on the way in and on the way out. */

import assert from 'node:assert/strict'
import { Packr, Unpackr } from 'msgpackr'
import type { WorkspaceCommand } from '../ledger/commands.js'
import type { SystemCommand } from '../ledger/system.js'
import { notInSubset, readSubset } from './msgpack-subset.js'
import { crc32cFinish, crc32cInitial, crc32cUpdate, crc32cUpdateRange, crc32cUpdateUint32BE } from './crc32c.js'

export const recordVersion = 1

/** One accepted command. `workspace` is null for system (admin) commands. */
export type LogRecord =
  | { readonly v: typeof recordVersion; readonly workspace: null; readonly command: SystemCommand }
  | { readonly v: typeof recordVersion; readonly workspace: string; readonly command: WorkspaceCommand }

// Plain maps, no shared structure table: every record decodes on its own, whatever came before it.
const packr = new Packr({ useRecords: false, mapsAsObjects: true, variableMapSize: true })
/** The same decoding, for bytes read in place from a buffer LMDB reuses: binary values are copied out of it. */
const inPlaceUnpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, copyBuffers: true })

/**
 * Every stored value (log record or snapshot) is framed:
 *
 *   byte 0      0xC1, a byte MessagePack never uses, so a value without a frame is told apart
 *   byte 1      frame version
 *   bytes 2..5  CRC32C, big-endian, of the value's LMDB key bytes followed by the payload
 *   bytes 6..   the msgpackr payload
 *
 * The key is inside the checksum so that a value found under another key (a misdirected write,
 * a page mix-up) fails as surely as a flipped bit does. The length is LMDB's: a cut value fails.
 */
const frameMarker = 0xc1
const frameVersion = 1
const frameHeaderBytes = 6

export type Unframed = { readonly ok: true; readonly payload: Buffer } | { readonly ok: false; readonly reason: string }

function checksumOf(keyBytes: Uint8Array, payload: Uint8Array): number {
  return crc32cFinish(crc32cUpdate(crc32cUpdate(crc32cInitial, keyBytes), payload))
}

export function frame(keyBytes: Uint8Array, payload: Uint8Array): Buffer {
  const bytes = Buffer.allocUnsafe(frameHeaderBytes + payload.length)
  bytes[0] = frameMarker
  bytes[1] = frameVersion
  bytes.writeUInt32BE(checksumOf(keyBytes, payload), 2)
  bytes.set(payload, frameHeaderBytes)
  return bytes
}

/** Why bytes[0..length) do not start with a frame header, or null when they do. */
function frameHeaderProblem(bytes: Uint8Array, length: number): string | null {
  if (length < frameHeaderBytes) return `only ${length} bytes, shorter than the ${frameHeaderBytes}-byte frame header`
  if (bytes[0] !== frameMarker) return `no frame marker (first byte 0x${bytes[0].toString(16).padStart(2, '0')}, expected 0xc1)`
  if (bytes[1] !== frameVersion) return `unknown frame version ${bytes[1]}`
  return null
}

/** Why the checksum stored in the header differs from the computed one, or null when they agree. */
function checksumProblem(bytes: Uint8Array, computed: number, length: number): string | null {
  const stored32 = ((bytes[2] << 24) | (bytes[3] << 16) | (bytes[4] << 8) | bytes[5]) >>> 0
  if (stored32 === computed) return null
  return `checksum mismatch (stored 0x${hex32(stored32)}, computed 0x${hex32(computed)} over ${length - frameHeaderBytes} payload bytes)`
}

/** Checks the frame and the checksum; never throws on damaged bytes (damage is an operating error). */
export function unframe(keyBytes: Uint8Array, stored: Uint8Array): Unframed {
  const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength)
  const damage = frameHeaderProblem(bytes, bytes.length) ?? checksumProblem(bytes, checksumOf(keyBytes, bytes.subarray(frameHeaderBytes)), bytes.length)
  if (damage !== null) return { ok: false, reason: damage }
  return { ok: true, payload: bytes.subarray(frameHeaderBytes) }
}

function hex32(value: number): string {
  return value.toString(16).padStart(8, '0')
}

/**
 * How many bytes of the seq a log record's checksum covers: 4 in log format 1 (records keyed by LMDB's
 * uint32 encoding, seqs up to 2^32 - 1), 8 from format 2 on (seqs up to Number.MAX_SAFE_INTEGER, written
 * as a 64-bit big-endian integer). The checksum covers the seq, not LMDB's key bytes, so it does not
 * depend on how the key is encoded.
 */
export type SeqWidth = 4 | 8

/** The largest seq of each width: format 1's uint32 keys; format 2's doubles, exact up to 2^53 - 1. */
export function seqMaxOf(width: SeqWidth): number {
  return width === 4 ? 0xffffffff : Number.MAX_SAFE_INTEGER
}

/** The key bytes a log record's checksum covers: its seq, big-endian, in width bytes. */
export function seqKeyBytes(seq: number, width: SeqWidth = 8): Buffer {
  assert.ok(Number.isSafeInteger(seq) && seq >= 1 && seq <= seqMaxOf(width))
  const bytes = Buffer.alloc(width)
  if (width === 4) bytes.writeUInt32BE(seq, 0)
  else bytes.writeBigUInt64BE(BigInt(seq), 0)
  return bytes
}

/** A CRC32C continued over seq as seqKeyBytes(seq, width) writes it, without a buffer. */
function crc32cUpdateSeq(state: number, seq: number, width: SeqWidth): number {
  const low = seq % 0x1_0000_0000
  if (width === 4) return crc32cUpdateUint32BE(state, low)
  return crc32cUpdateUint32BE(crc32cUpdateUint32BE(state, (seq - low) / 0x1_0000_0000), low)
}

function assertRecord(record: LogRecord): void {
  assert.equal(record.v, recordVersion, 'unknown log record version')
  assert.ok(record.workspace === null || typeof record.workspace === 'string')
  assert.equal(typeof record.command, 'object')
  assert.equal(typeof record.command.type, 'string')
  assert.ok(Number.isSafeInteger(record.command.at_ms))
}

/** Why a decoded value is not a log record, or null when it is one. */
function recordProblem(value: unknown): string | null {
  if (value === null || typeof value !== 'object') return 'the payload is not a map'
  const record = value as Partial<LogRecord>
  if (record.v !== recordVersion) return `unknown record version ${String(record.v)}`
  if (!(record.workspace === null || typeof record.workspace === 'string')) return 'workspace is neither null nor a string'
  const command = record.command as { type?: unknown; at_ms?: unknown } | undefined
  if (command === null || typeof command !== 'object') return 'no command'
  if (typeof command.type !== 'string') return 'the command has no type'
  if (!Number.isSafeInteger(command.at_ms)) return 'the command has no at_ms'
  return null
}

/** The stored bytes of record seq (format 2: the checksum covers 8 bytes of seq). A programmer's value: asserted, not checked. */
export function encodeRecord(seq: number, record: LogRecord): Buffer {
  assertRecord(record)
  assert.ok(Number.isSafeInteger(seq) && seq >= 1 && seq <= seqMaxOf(8))
  // As frame(seqKeyBytes(seq, 8), payload), without the key's buffer: this runs for every write.
  const payload = packr.pack(record)
  const bytes = Buffer.allocUnsafe(frameHeaderBytes + payload.length)
  bytes[0] = frameMarker
  bytes[1] = frameVersion
  bytes.writeUInt32BE(crc32cFinish(crc32cUpdate(crc32cUpdateSeq(crc32cInitial, seq, 8), payload)), 2)
  bytes.set(payload, frameHeaderBytes)
  return bytes
}

export type RecordRead = { readonly ok: true; readonly record: LogRecord } | { readonly ok: false; readonly reason: string }

/** Reads record seq from its stored bytes; damage (checksum, decoding, shape) is reported, not thrown. */
export function decodeRecord(seq: number, bytes: Uint8Array, width: SeqWidth = 8): RecordRead {
  return decodeRecordInPlace(seq, bytes, bytes.length, width)
}

/**
 * Why bytes[0..length) are not a sound frame of record seq, or null when they are. The same checks as
 * unframe(seqKeyBytes(seq), ...), without a buffer for the key or a view of the payload: start-up
 * checks a million records this way, straight from LMDB's shared read buffer (and decodeRecord, in place
 * or not, goes through here).
 */
export function recordFrameProblem(seq: number, bytes: Uint8Array, length: number, width: SeqWidth = 8): string | null {
  return frameHeaderProblem(bytes, length)
    ?? checksumProblem(bytes, crc32cFinish(crc32cUpdateRange(crc32cUpdateSeq(crc32cInitial, seq, width), bytes, frameHeaderBytes, length)), length)
}

/**
 * Record seq from bytes[0..length), which may be a buffer overwritten after the call (LMDB's shared read
 * buffer): nothing returned refers to it. Damage (frame, checksum, decoding, shape) is reported, not thrown.
 */
export function decodeRecordInPlace(seq: number, bytes: Uint8Array, length: number, width: SeqWidth = 8): RecordRead {
  assert.ok(Number.isSafeInteger(seq) && seq >= 1 && seq <= seqMaxOf(width))
  const damage = recordFrameProblem(seq, bytes, length, width)
  if (damage !== null) return { ok: false, reason: damage }
  let value = readSubset(bytes, frameHeaderBytes, length)
  try {
    if (value === notInSubset) value = inPlaceUnpackr.unpack(bytes, { start: frameHeaderBytes, end: length })
  } catch (error) {
    return { ok: false, reason: `the checksum matches but the payload does not decode (${error instanceof Error ? error.message : String(error)})` }
  }
  const problem = recordProblem(value)
  if (problem !== null) return { ok: false, reason: `the checksum matches but ${problem}` }
  return { ok: true, record: value as LogRecord }
}

export function encodeValue(value: unknown): Buffer {
  return packr.pack(value)
}

export function decodeValue(bytes: Uint8Array): unknown {
  return packr.unpack(bytes)
}
