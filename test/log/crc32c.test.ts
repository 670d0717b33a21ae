/**
 * CRC32C (src/log/crc32c.ts): the published check values (the CRC catalogue's "123456789", RFC 3720's iSCSI
 * vectors), agreement with a bit-at-a-time reference on every length around the 8-byte stride and every split,
 * the ranged and big-endian-integer forms, and that every single flipped bit is caught.
 */
import t from 'tap'
import { crc32c, crc32cFinish, crc32cInitial, crc32cUpdate, crc32cUpdateRange, crc32cUpdateUint32BE } from '../../src/log/crc32c.ts'

/** CRC-32C one bit at a time, straight from the definition (reflected polynomial 0x82F63B78). */
function referenceCrc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff
  for (const byte of bytes) {
    crc ^= byte
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1
  }
  return (crc ^ 0xffffffff) >>> 0
}

/** Deterministic bytes (a 32-bit LCG), so a failure reproduces. */
function bytesOf(length: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(length)
  let state = seed >>> 0
  for (let index = 0; index < length; index++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    bytes[index] = state >>> 24
  }
  return bytes
}

t.test('published check values', async (t) => {
  t.equal(crc32c(Buffer.from('123456789', 'ascii')), 0xe3069283, 'the CRC catalogue\'s check value of CRC-32/ISCSI')
  t.equal(crc32c(new Uint8Array(0)), 0, 'empty')
  t.equal(crc32c(Buffer.from('a', 'ascii')), 0xc1d04330)
  t.equal(crc32c(Buffer.from('The quick brown fox jumps over the lazy dog', 'ascii')), 0x22620404)
  // RFC 3720, B.4: 32 bytes of zeros, of ones, ascending, descending.
  t.equal(crc32c(new Uint8Array(32)), 0x8a9136aa, '32 zero bytes')
  t.equal(crc32c(new Uint8Array(32).fill(0xff)), 0x62a8ab43, '32 bytes of 0xFF')
  t.equal(crc32c(Uint8Array.from({ length: 32 }, (_, index) => index)), 0x46dd794e, 'ascending 0..31')
  t.equal(crc32c(Uint8Array.from({ length: 32 }, (_, index) => 31 - index)), 0x113fdb5c, 'descending 31..0')
})

t.test('the reference agrees with the check value (it is the definition the fast path is compared with)', async (t) => {
  t.equal(referenceCrc32c(Buffer.from('123456789', 'ascii')), 0xe3069283)
})

t.test('every length 0..100 and some large ones equal the bit-at-a-time reference; the value is an unsigned 32-bit integer', async (t) => {
  const lengths = [...Array.from({ length: 101 }, (_, index) => index), 1_000, 4_096, 65_537]
  const wrong: number[] = []
  for (const length of lengths) {
    const bytes = bytesOf(length, length + 1)
    const value = crc32c(bytes)
    if (value !== referenceCrc32c(bytes) || !Number.isInteger(value) || value < 0 || value > 0xffffffff) wrong.push(length)
  }
  t.same(wrong, [])
})

t.test('split anywhere, the updates give the one-shot value', async (t) => {
  const bytes = bytesOf(77, 9)
  const whole = crc32c(bytes)
  const wrong: number[] = []
  for (let cut = 0; cut <= bytes.length; cut++) {
    const state = crc32cUpdate(crc32cUpdate(crc32cInitial, bytes.subarray(0, cut)), bytes.subarray(cut))
    if (crc32cFinish(state) !== whole) wrong.push(cut)
  }
  t.same(wrong, [])
})

t.test('a range of a larger buffer is checked as the bytes it covers, at any offset', async (t) => {
  const buffer = bytesOf(120, 3)
  const wrong: string[] = []
  for (const start of [0, 1, 3, 7, 8, 13]) {
    for (const end of [start, start + 1, start + 8, start + 15, 120]) {
      const ranged = crc32cFinish(crc32cUpdateRange(crc32cInitial, buffer, start, end))
      if (ranged !== referenceCrc32c(buffer.subarray(start, end))) wrong.push(`${start}..${end}`)
    }
  }
  t.same(wrong, [])
  const mid = crc32cUpdateRange(crc32cInitial, buffer, 0, 50)
  t.equal(crc32cFinish(crc32cUpdateRange(mid, buffer, 50, 120)), crc32c(buffer), 'ranges chain')
})

t.test('a uint32 is covered as its four big-endian bytes', async (t) => {
  for (const value of [0, 1, 0xff, 0x100, 0x12345678, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff]) {
    const bytes = Buffer.alloc(4)
    bytes.writeUInt32BE(value)
    const payload = Buffer.from('payload', 'ascii')
    const viaInteger = crc32cFinish(crc32cUpdate(crc32cUpdateUint32BE(crc32cInitial, value), payload))
    t.equal(viaInteger, referenceCrc32c(Buffer.concat([bytes, payload])), `0x${value.toString(16)}`)
  }
})

t.test('every single flipped bit of a record changes the checksum', async (t) => {
  const bytes = bytesOf(300, 5)
  const clean = crc32c(bytes)
  let missed = 0
  for (let bit = 0; bit < bytes.length * 8; bit++) {
    bytes[bit >> 3] ^= 1 << (bit & 7)
    if (crc32c(bytes) === clean) missed++
    bytes[bit >> 3] ^= 1 << (bit & 7)
  }
  t.equal(missed, 0, 'all 2,400 flips caught')
  t.equal(crc32c(bytes), clean, 'restored')
})
