/** The subset reader (src/log/msgpack-subset.ts): within its subset it returns what msgpackr returns; outside it, it says so. */
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import { Packr } from 'msgpackr'
import t from 'tap'
import { notInSubset, readSubset } from '../../src/log/msgpack-subset.ts'

// The log's own packer settings (src/log/codec.ts).
const packr = new Packr({ useRecords: false, mapsAsObjects: true, variableMapSize: true })

/** What msgpackr makes of the bytes, or the error it throws. */
function reference(bytes: Uint8Array): unknown {
  try {
    return { value: packr.unpack(bytes) }
  } catch (error) {
    return { error: String(error) }
  }
}

/** Values like the ones commands hold, and some they never do (non-ASCII, big numbers, undefined, binary). */
const valueArbitrary = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null), fc.boolean(), fc.integer(), fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.maxSafeInteger(), fc.double(),
    fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 10 }), fc.constantFrom('entry.post', 'assets:bank', 'key_c5zvw76tvdwh64', '__proto__', ''),
    fc.constant(undefined), fc.uint8Array({ maxLength: 4 }),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('type', 'lines', 'amount', '__proto__')), tie('value'), { maxKeys: 6 }),
  ),
})).value

t.test('property: the subset reader returns what msgpackr returns, or leaves the bytes to it', async (t) => {
  let inSubset = 0
  let left = 0
  fc.assert(fc.property(valueArbitrary, fc.integer({ min: 0, max: 7 }), (value, offset) => {
    const packed = packr.pack(value)
    // Read in place, from a larger buffer with other bytes around the value.
    const buffer = new Uint8Array(offset + packed.length + 5).fill(0xc1)
    buffer.set(packed, offset)
    const read = readSubset(buffer, offset, offset + packed.length)
    if (read === notInSubset) {
      left++
      return true
    }
    inSubset++
    return isDeepStrictEqual({ value: read }, reference(packed))
  }), { numRuns: 3_000 })
  t.ok(inSubset > 500 && left > 100, `both paths taken (${inSubset} read, ${left} left to msgpackr)`)
})

t.test('read in place from one Buffer that every read overwrites, as LMDB hands it over', async (t) => {
  const shared = Buffer.alloc(1024)
  const dates = Array.from({ length: 200 }, (_, day) => new Date(Date.UTC(2020, 0, 1 + day)).toISOString().slice(0, 10))
  const wrong: string[] = []
  for (const [index, date] of [...dates, ...dates.reverse()].entries()) {
    const packed = packr.pack({ type: 'window.open', label: `day ${index}`, from: date, to: date })
    shared.set(packed)
    const read = readSubset(shared, 0, packed.length) as { from: string; to: string }
    if (read.from !== date || read.to !== date) wrong.push(`${date} read as ${read.from}..${read.to}`)
  }
  t.same(wrong, [], 'no string is answered from bytes that changed since')
})

t.test('cut, extended and damaged bytes are never read as something else', async (t) => {
  const record = { v: 1, workspace: 'default', command: { type: 'entry.post', lines: [{ account: 'assets:bank', amount: 6 }, { account: 'income:sales', amount: -6 }], effective_at_ms: 1577836972800, description: null, metadata: { a: 'b' }, at_ms: 1735689600009, key_id: 'key_c5zvw76tvdwh64', visibility: null } }
  const packed = packr.pack(record)
  t.same(readSubset(packed, 0, packed.length), record)
  const read = Array.from({ length: packed.length }, (_, cut) => readSubset(packed, 0, cut))
  t.ok(read.every((value) => value === notInSubset), 'every cut is left to msgpackr')
  // Any single flipped byte: either msgpackr's value, or left to it.
  const differing: string[] = []
  for (let at = 0; at < packed.length; at++) {
    for (const mask of [0x01, 0x80, 0xff]) {
      const damaged = Uint8Array.from(packed)
      damaged[at] ^= mask
      const read = readSubset(damaged, 0, damaged.length)
      if (read !== notInSubset && !isDeepStrictEqual({ value: read }, reference(damaged))) differing.push(`byte ${at} ^ ${mask}`)
    }
  }
  t.same(differing, [], 'every flipped byte reads as msgpackr reads it, or is left to it')
  // Nesting deep enough to overflow the stack is left to msgpackr.
  const deep = new Uint8Array(200_000).fill(0x91)
  t.equal(readSubset(deep, 0, deep.length), notInSubset)
})
