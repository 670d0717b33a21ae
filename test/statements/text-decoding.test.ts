/**
 * A statement file that is not UTF-8 is read as Windows-1252 (docs/API.md, "Bank statement formats"), the same on
 * every Node line: `new TextDecoder('latin1')` is ISO 8859-1 on Node 20 and Windows-1252 on Node 22, so a file with
 * a euro sign was refused on one and read on the other.
 */
import t from 'tap'
import { readMt940 } from '../../src/statements/mt940.ts'
import { decodeText, decodeWindows1252 } from '../../src/statements/text.ts'
import { fixture, statementsOf } from './fixtures.ts'

/** The Encoding Standard's windows-1252 index for 0x80–0x9F, spelled out: the undefined bytes are their C1 code points. */
const expectedHigh = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ'

t.test('the bytes 0x80–0x9F are Windows-1252, the rest ISO 8859-1', async (t) => {
  const high = Uint8Array.from({ length: 32 }, (_, index) => 0x80 + index)
  t.equal(decodeWindows1252(high), expectedHigh)
  const low = Uint8Array.from({ length: 128 }, (_, index) => index)
  t.equal(decodeWindows1252(low), String.fromCharCode(...low), 'ASCII unchanged')
  const upper = Uint8Array.from({ length: 96 }, (_, index) => 0xa0 + index)
  t.equal(decodeWindows1252(upper), String.fromCharCode(...upper), '0xA0–0xFF as in ISO 8859-1 (0xFC is ü)')
  t.equal(decodeWindows1252(Buffer.from([0x41, 0x80, 0xfc]).subarray(1)), '€ü', 'a view into a larger buffer reads only its own bytes')
})

t.test("agrees with this node's TextDecoder where that one is Windows-1252 (Node 22 and later)", async (t) => {
  const every = Uint8Array.from({ length: 256 }, (_, index) => index)
  const native = new TextDecoder('latin1').decode(every)
  if (native.charCodeAt(0x80) !== 0x20ac) {
    t.equal(native.charCodeAt(0x80), 0x80, `this node (${process.version}) decodes the label as ISO 8859-1: why the decoding is written out`)
    return
  }
  t.equal(decodeWindows1252(every), native)
})

t.test('an MT940 file in Windows-1252 reads its euro sign; an undefined byte is a control character, refused', async (t) => {
  const file = fixture('mt940', 'bhd-three-statements.sta').toString('latin1')
  t.ok(file.includes(':86:Electricity, October'))
  const euro = Buffer.from(file.replace(':86:Electricity, October', ':86:Electricity \u0080 October'), 'latin1')
  t.throws(() => new TextDecoder('utf-8', { fatal: true }).decode(euro), 'the file is not UTF-8')
  t.equal(decodeText(euro).includes('Electricity € October'), true)
  t.equal(statementsOf(readMt940(euro))[0].entries[1].description, 'Electricity € October')
  const undefinedByte = Buffer.from(file.replace(':86:Electricity, October', ':86:Electricity \u0081 October'), 'latin1')
  t.match(readMt940(undefinedByte), { ok: false, code: 'statement_invalid', details: [{ path: /lines\/1\/description/, message: /control characters/ }] })
})
