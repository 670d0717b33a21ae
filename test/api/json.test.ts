/** Request bodies as JSON: the nesting bound (src/api/json.ts) on both of its paths, strings not counted. */

import fc from 'fast-check'
import t from 'tap'
import { jsonDepthMax, nestingDepth, parseJson } from '../../src/api/json.ts'

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`

t.test('nesting up to the bound parses; one past it is request_invalid at /', async (t) => {
  const atBound = parseJson(Buffer.from(nested(jsonDepthMax)))
  t.equal(atBound.ok, true, `${jsonDepthMax} levels parse`)
  const past = parseJson(Buffer.from(nested(jsonDepthMax + 1)))
  t.equal(past.ok, false, `${jsonDepthMax + 1} levels are refused`)
  if (!past.ok) {
    t.equal(past.code, 'request_invalid')
    t.same(past.details, [{ path: '/', message: `nested deeper than ${jsonDepthMax} levels` }])
  }
  t.equal(parseJson(Buffer.from(`{"a":{"b":${nested(jsonDepthMax - 2, '{"c":', '}').replace(/\{"c":\}/g, '{}')}}}`)).ok, true, 'objects count like arrays')
  t.equal(parseJson(Buffer.from(`{"a":${nested(10_000)}}`)).ok, false, 'ten thousand levels are refused without a stack overflow')
})

t.test('many brackets side by side are not depth; brackets inside strings are not structure', async (t) => {
  const wide = `[${Array.from({ length: 500 }, () => '{}').join(',')}]`
  t.equal(nestingDepth(Buffer.from(wide)), 2)
  t.equal(parseJson(Buffer.from(wide)).ok, true, '500 objects in one array parse')
  const inString = JSON.stringify({ text: `${'['.repeat(200)}\\"${'{'.repeat(200)}` })
  t.equal(nestingDepth(Buffer.from(inString)), 1, 'brackets and escaped quotes inside a string do not nest')
  t.equal(parseJson(Buffer.from(inString)).ok, true)
})

t.test('not JSON is json_invalid', async (t) => {
  for (const text of ['', '{', '{"a":1}}', 'nul', '[1,]']) {
    const parsed = parseJson(Buffer.from(text))
    t.equal(parsed.ok ? 'parsed' : parsed.code, 'json_invalid', JSON.stringify(text))
  }
})

t.test('bytes that are not UTF-8 are json_invalid, never U+FFFD', async (t) => {
  const inString = (bytes: number[]) => Buffer.concat([Buffer.from('{"description":"a'), Buffer.from(bytes), Buffer.from('b"}')])
  const invalid: [string, Buffer][] = [
    ['a lone continuation byte', inString([0x80])],
    ['0xff', inString([0xff])],
    ['an overlong "/"', inString([0xc0, 0xaf])],
    ['a UTF-16 surrogate encoded in UTF-8', inString([0xed, 0xa0, 0x80])],
    ['a sequence cut short', inString([0xe2, 0x82])],
    ['beyond U+10FFFF', inString([0xf4, 0x90, 0x80, 0x80])],
    ['Latin-1 ü', inString([0xfc])],
    ['a truncated sequence at the very end', Buffer.concat([Buffer.from('{"a":1}'), Buffer.from([0xe2])])],
  ]
  for (const [name, bytes] of invalid) {
    const parsed = parseJson(bytes)
    t.equal(parsed.ok ? 'parsed' : parsed.code, 'json_invalid', name)
  }
  const valid = parseJson(Buffer.from(JSON.stringify({ description: 'Überweisung € 😀 ÿ' })))
  t.same(valid.ok ? valid.value : valid, { description: 'Überweisung € 😀 ÿ' }, 'two-, three- and four-byte characters parse')
  const bom = parseJson(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{}')]))
  t.equal(bom.ok ? 'parsed' : bom.code, 'json_invalid', 'a byte-order mark is not JSON, as before')
})

t.test('the depth scan agrees with a byte-by-byte reference on any text, strings and escapes included', async (t) => {
  /** The scan as first written: one test per byte, a flag for being inside a string. */
  const reference = (bytes: Uint8Array): number => {
    let depth = 0
    let deepest = 0
    let inString = false
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]
      if (inString) {
        if (byte === 0x5c) i++
        else if (byte === 0x22) inString = false
      } else if (byte === 0x22) inString = true
      else if (byte === 0x7b || byte === 0x5b) deepest = Math.max(deepest, ++depth)
      else if (byte === 0x7d || byte === 0x5d) depth--
    }
    return deepest
  }
  const piece = fc.constantFrom('{', '}', '[', ']', '"', '\\', '\\"', 'a', ',', ':', 'é')
  fc.assert(fc.property(fc.array(piece, { maxLength: 200 }), (pieces) => {
    const bytes = Buffer.from(pieces.join(''))
    return nestingDepth(bytes) === reference(bytes)
  }), { numRuns: 2000 })
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
    const bytes = Buffer.from(JSON.stringify(value))
    return nestingDepth(bytes) === reference(bytes)
  }), { numRuns: 500 })
  t.pass('2,500 texts scanned alike')
})
