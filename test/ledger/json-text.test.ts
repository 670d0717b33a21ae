/** jsonText (src/ledger/json-text.ts): JSON.stringify of a string, byte for byte, through either of its paths. */
import fc from 'fast-check'
import t from 'tap'
import { jsonText } from '../../src/ledger/json-text.ts'

t.test('jsonText is JSON.stringify for any string', async (t) => {
  fc.assert(fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)) })), (value) => jsonText(value) === JSON.stringify(value)), { numRuns: 20_000 })
  for (const value of ['', 'acc_bznap9l000000001', '"', '\\', '\u007f', '\u0000', '\u001f', ' ~', '\ud800', '\udc00x', '\u2028', 'caf\u00e9', '</script>']) t.equal(jsonText(value), JSON.stringify(value), [...value].map((c) => c.codePointAt(0)!.toString(16)).join(' '))
})
