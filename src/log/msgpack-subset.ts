/** @module A fast MessagePack reader for the subset log records are made of; anything outside it is left to msgpackr. */

// Start-up decodes every log record after the snapshots: a million at 1M commands. msgpackr reads a
// record of ~220 bytes in ~2.2 µs on the bench machine: past 180 bytes it extracts strings natively,
// so every map key is a fresh string and every property store looks it up. This reader covers what
// msgpackr writes for the commands (maps with short string keys, arrays, ASCII strings, integers
// up to 32 bits, doubles, nil, booleans), hands out each short string from a small cache of the
// bytes it was read from, and answers `notInSubset` for anything else (non-ASCII text, 64-bit
// integers, float32, binary, extensions, '__proto__', truncated or trailing bytes), so that the
// caller decodes those records with msgpackr itself. Within the subset the value is the one
// msgpackr returns with `mapsAsObjects` (test/log/msgpack-subset.test.ts compares them).

/** The answer for bytes this reader leaves to msgpackr. */
export const notInSubset: unique symbol = Symbol('not in the subset')

class OutsideSubset extends Error {}
/** Thrown (one preallocated instance) to unwind the reader; caught in readSubset only. */
const outside = new OutsideSubset('not in the subset')

/** Strings of up to this many bytes are cached: map keys, command types, account names, key ids. */
const cachedBytesMax = 32
const cacheSlots = 4096

interface CachedString {
  readonly bytes: Uint8Array
  readonly text: string
}

const cache: (CachedString | undefined)[] = new Array<CachedString | undefined>(cacheSlots).fill(undefined)
const float64 = new Float64Array(1)
const float64Bytes = new Uint8Array(float64.buffer)
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
const copyRange = Uint8Array.prototype.slice
/** Node's own Latin-1 slice of a byte range, callable on any Uint8Array (no view of the range is made). */
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice(this: Uint8Array, start: number, end: number): string }).latin1Slice

// The reader's cursor: module state, as in msgpackr, so the recursive functions pass no arguments.
let source: Uint8Array = new Uint8Array(0)
let position = 0
let end = 0

/**
 * The value MessagePack-encoded in bytes[start..stop), or notInSubset. Nothing returned refers to
 * bytes, so they may be a buffer that is reused afterwards.
 */
export function readSubset(bytes: Uint8Array, start: number, stop: number): unknown {
  source = bytes
  position = start
  end = stop
  try {
    const value = read()
    return position === stop ? value : notInSubset
  } catch (error) {
    // RangeError: nesting deep enough to overflow the stack; msgpackr then decides.
    if (error === outside || error instanceof RangeError) return notInSubset
    throw error
  } finally {
    source = float64Bytes
  }
}

function read(): unknown {
  if (position >= end) throw outside
  const token = source[position++]
  if (token < 0x80) return token
  if (token < 0x90) return readMap(token - 0x80)
  if (token < 0xa0) return readArray(token - 0x90)
  if (token < 0xc0) return readString(token - 0xa0)
  if (token >= 0xe0) return token - 0x100
  switch (token) {
    case 0xc0: return null
    case 0xc2: return false
    case 0xc3: return true
    case 0xcb: return readFloat64()
    case 0xcc: return readUint(1)
    case 0xcd: return readUint(2)
    case 0xce: return readUint(4)
    case 0xd0: return (readUint(1) << 24) >> 24
    case 0xd1: return (readUint(2) << 16) >> 16
    case 0xd2: return readUint(4) | 0
    case 0xd9: return readString(readUint(1))
    case 0xda: return readString(readUint(2))
    case 0xdb: return readString(readUint(4))
    case 0xdc: return readArray(readUint(2))
    case 0xdd: return readArray(readUint(4))
    case 0xde: return readMap(readUint(2))
    case 0xdf: return readMap(readUint(4))
    default: throw outside
  }
}

/** A big-endian unsigned integer of 1, 2 or 4 bytes. */
function readUint(byteCount: number): number {
  if (position + byteCount > end) throw outside
  let value = 0
  for (let i = 0; i < byteCount; i++) value = value * 256 + source[position + i]
  position += byteCount
  return value
}

function readFloat64(): number {
  if (position + 8 > end) throw outside
  for (let i = 0; i < 8; i++) float64Bytes[littleEndian ? 7 - i : i] = source[position + i]
  position += 8
  return float64[0]
}

function readMap(count: number): Record<string, unknown> {
  // Every pair takes two bytes at least: a count beyond that is damage, for msgpackr to report.
  if (count * 2 > end - position) throw outside
  const object: Record<string, unknown> = {}
  for (let i = 0; i < count; i++) {
    const token = position < end ? source[position++] : -1
    let length: number
    if (token >= 0xa0 && token < 0xc0) length = token - 0xa0
    else if (token === 0xd9) length = readUint(1)
    else throw outside
    const key = readString(length)
    // msgpackr renames this key (to keep the prototype); let it.
    if (key === '__proto__') throw outside
    object[key] = read()
  }
  return object
}

function readArray(count: number): unknown[] {
  if (count > end - position) throw outside
  const array = new Array<unknown>(count)
  for (let i = 0; i < count; i++) array[i] = read()
  return array
}

function readString(length: number): string {
  const bytes = source
  const at = position
  if (at + length > end) throw outside
  if (length > cachedBytesMax) return asciiText(bytes, at, length)
  const slot = length === 0 ? 0 : (Math.imul(length, 0x9e3779b1) ^ (bytes[at] << 3) ^ (bytes[at + length - 1] << 7) ^ (bytes[at + (length >>> 1)] << 1)) & (cacheSlots - 1)
  const entry = cache[slot]
  if (entry !== undefined && entry.bytes.length === length) {
    const cached = entry.bytes
    let i = 0
    while (i < length && cached[i] === bytes[at + i]) i++
    if (i === length) {
      position = at + length
      return entry.text
    }
  }
  const text = asciiText(bytes, at, length)
  // A copy: Buffer's own slice is a view, and the buffer read from is overwritten by the next read.
  cache[slot] = { bytes: copyRange.call(bytes, at, at + length), text }
  return text
}

/** ASCII only: other UTF-8 is left to msgpackr, whose decoding of odd sequences is the reference. */
function asciiText(bytes: Uint8Array, at: number, length: number): string {
  const stop = at + length
  for (let i = at; i < stop; i++) if (bytes[i] >= 0x80) throw outside
  position = stop
  return latin1Slice.call(bytes, at, stop)
}
