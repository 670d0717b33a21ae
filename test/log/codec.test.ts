/**
 * src/log/codec.ts on its own: the frame (marker, version, CRC32C over the key and the payload: the standard's check
 * value), every damage it reports by reason and never throws on, the key inside the checksum, seq keys in both
 * widths and their bounds, records round-tripped and their shape checked, a checksum that matches over a payload
 * that does not decode or is no record, and reads in place from a longer buffer.
 */
import t from 'tap'
import {
  decodeRecord, decodeRecordInPlace, decodeValue, encodeRecord, encodeValue, frame, recordFrameProblem, recordVersion, seqKeyBytes, seqMaxOf, unframe,
  type LogRecord,
} from '../../src/log/codec.ts'

const none = new Uint8Array(0)
const record = { v: recordVersion, workspace: 'ws_1', command: { type: 'account.create', at_ms: 1_700_000_000_000, name: 'Cash' } } as unknown as LogRecord

t.test('the frame: 0xc1, version 1, CRC32C big-endian, then the payload', async (t) => {
  const framed = frame(none, Buffer.from('123456789'))
  t.equal(framed.length, 6 + 9)
  t.same([...framed.subarray(0, 6)], [0xc1, 1, 0xe3, 0x06, 0x92, 0x83], 'CRC32C("123456789") is 0xe3069283')
  t.equal(framed.subarray(6).toString(), '123456789')
  const read = unframe(none, framed)
  t.ok(read.ok && Buffer.from(read.payload).toString() === '123456789')
})

t.test('the key is inside the checksum: the same bytes under another key fail', async (t) => {
  const framed = frame(Buffer.from('key-a'), Buffer.from('payload'))
  t.equal(unframe(Buffer.from('key-a'), framed).ok, true)
  const moved = unframe(Buffer.from('key-b'), framed)
  t.equal(moved.ok, false)
  t.match(!moved.ok && moved.reason, /^checksum mismatch \(stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8} over 7 payload bytes\)$/)
})

t.test('damage is reported by reason, never thrown', async (t) => {
  const framed = frame(none, Buffer.from('payload'))
  const reason = (bytes: Uint8Array) => { const read = unframe(none, bytes); return read.ok ? 'ok' : read.reason }
  t.equal(reason(framed.subarray(0, 5)), 'only 5 bytes, shorter than the 6-byte frame header')
  t.equal(reason(Buffer.concat([Buffer.from([0x93]), framed.subarray(1)])), 'no frame marker (first byte 0x93, expected 0xc1)')
  t.equal(reason(Buffer.concat([Buffer.from([0xc1, 7]), framed.subarray(2)])), 'unknown frame version 7')
  const flipped = Buffer.from(framed)
  flipped[flipped.length - 1] ^= 0x01
  t.match(reason(flipped), /^checksum mismatch/)
  t.match(reason(framed.subarray(0, framed.length - 1)), /^checksum mismatch .* over 6 payload bytes/, 'a cut value fails')
})

t.test('seq keys: big-endian in 4 or 8 bytes, bounded by the width', async (t) => {
  t.same([...seqKeyBytes(1, 4)], [0, 0, 0, 1])
  t.same([...seqKeyBytes(0x01020304, 4)], [1, 2, 3, 4])
  t.same([...seqKeyBytes(2 ** 40 + 5)], [0, 0, 1, 0, 0, 0, 0, 5], 'width 8 by default')
  t.equal(seqMaxOf(4), 0xffffffff)
  t.equal(seqMaxOf(8), Number.MAX_SAFE_INTEGER)
  t.same([...seqKeyBytes(0xffffffff, 4)], [255, 255, 255, 255])
  t.throws(() => seqKeyBytes(2 ** 32, 4))
  t.throws(() => seqKeyBytes(0))
  t.throws(() => seqKeyBytes(1.5))
  t.throws(() => seqKeyBytes(Number.MAX_SAFE_INTEGER + 1))
})

t.test('a record round-trips; its frame is the frame of its payload under its 8-byte seq', async (t) => {
  const bytes = encodeRecord(41, record)
  t.same(bytes, frame(seqKeyBytes(41, 8), encodeValue(record)))
  t.same(decodeRecord(41, bytes), { ok: true, record })
  t.equal(recordFrameProblem(41, bytes, bytes.length), null)
  const large = encodeRecord(2 ** 40 + 1, record)
  t.same(decodeRecord(2 ** 40 + 1, large), { ok: true, record }, 'a seq past 32 bits')
  t.same(decodeRecord(1, encodeRecord(1, { v: recordVersion, workspace: null, command: { type: 'workspace.create', at_ms: 0 } } as unknown as LogRecord)).ok, true, 'a system record')
})

t.test('a record read under another seq, or in the other width, fails its checksum', async (t) => {
  const bytes = encodeRecord(41, record)
  const other = decodeRecord(42, bytes)
  t.match(!other.ok && other.reason, /^checksum mismatch/)
  t.match(recordFrameProblem(41, bytes, bytes.length, 4), /^checksum mismatch/, 'format 2 bytes read as format 1')
  const formatOne = frame(seqKeyBytes(41, 4), encodeValue(record))
  t.same(decodeRecord(41, formatOne, 4), { ok: true, record }, 'format 1: the checksum covers 4 bytes of seq')
  t.equal(decodeRecord(41, formatOne).ok, false)
})

t.test('a checksum that matches over what is no record: each problem named', async (t) => {
  const framedAs = (value: unknown) => frame(seqKeyBytes(7), encodeValue(value))
  const reason = (bytes: Uint8Array) => { const read = decodeRecord(7, bytes); return read.ok ? 'ok' : read.reason }
  t.equal(reason(framedAs(12)), 'the checksum matches but the payload is not a map')
  t.equal(reason(framedAs({ ...record, v: 2 })), 'the checksum matches but unknown record version 2')
  t.equal(reason(framedAs({ ...record, workspace: 5 })), 'the checksum matches but workspace is neither null nor a string')
  t.equal(reason(framedAs({ v: recordVersion, workspace: null })), 'the checksum matches but no command')
  t.equal(reason(framedAs({ ...record, command: { at_ms: 1 } })), 'the checksum matches but the command has no type')
  t.equal(reason(framedAs({ ...record, command: { type: 'x', at_ms: 1.5 } })), 'the checksum matches but the command has no at_ms')
  t.match(reason(frame(seqKeyBytes(7), Buffer.from([0x82, 0xa1]))), /^the checksum matches but the payload does not decode \(/, 'a map cut short')
})

t.test('writing a record that is not one is a programming error: thrown', async (t) => {
  t.throws(() => encodeRecord(1, { ...record, v: 2 } as unknown as LogRecord))
  t.throws(() => encodeRecord(1, { ...record, command: 'x' } as unknown as LogRecord))
})

t.test('in place: only the given length is read, and nothing returned refers to the buffer', async (t) => {
  const bytes = encodeRecord(9, record)
  const shared = Buffer.alloc(bytes.length + 32, 0xee)
  bytes.copy(shared)
  const read = decodeRecordInPlace(9, shared, bytes.length)
  t.same(read, { ok: true, record })
  shared.fill(0)
  t.same(read, { ok: true, record }, 'the record is unchanged after the buffer is overwritten')
  t.match(recordFrameProblem(9, shared, bytes.length), /no frame marker/)
  const withBinary = { ...record, command: { ...record.command, blob: Buffer.from([1, 2, 3]) } } as unknown as LogRecord
  const binary = encodeRecord(10, withBinary)
  const binaryRead = decodeRecordInPlace(10, binary, binary.length)
  binary.fill(0)
  t.same(binaryRead.ok && [...(binaryRead.record.command as unknown as { blob: Uint8Array }).blob], [1, 2, 3], 'binary values are copied out')
})

t.test('values: plain maps round-trip', async (t) => {
  const value = { a: 1, b: [true, null, 'x'], c: { d: 2.5 } }
  t.same(decodeValue(encodeValue(value)), value)
})
