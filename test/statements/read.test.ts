/**
 * src/statements/read.ts on its own: the one entry point reads a file as the format `?format=` names, else as
 * Content-Type names (its parameters ignored), else as its content looks, and answers what that format's reader
 * answers; a file no format fits, empty or not, is statement_invalid naming the formats; it never throws, even
 * for bytes read as a format they are not.
 */
import t from 'tap'
import { readBai2 } from '../../src/statements/bai2.ts'
import { readCamt053 } from '../../src/statements/camt053.ts'
import { readMt940 } from '../../src/statements/mt940.ts'
import { readStatements } from '../../src/statements/read.ts'
import type { ReadResult } from '../../src/statements/types.ts'
import { fixture } from './fixtures.ts'

const files = {
  camt053: { bytes: fixture('camt053', 'v02-jpy-two-statements-crlf.xml'), read: readCamt053 },
  mt940: { bytes: fixture('mt940', 'bhd-three-statements.sta'), read: readMt940 },
  bai2: { bytes: fixture('bai2', 'usd-two-groups-continuations.bai'), read: readBai2 },
} as const
const mediaTypes = { camt053: 'application/xml', mt940: 'application/x-mt940', bai2: 'application/x-bai2' } as const
const formats = ['camt053', 'mt940', 'bai2'] as const

const okCount = (result: ReadResult) => (result.ok ? result.statements.length : `${result.code}`)

t.test('by content: each format sniffed, answered as its reader answers', async (t) => {
  for (const format of formats) {
    const { bytes, read } = files[format]
    const result = readStatements(bytes)
    t.equal(result.ok, true, `${format} read`)
    t.same(result, read(bytes), `${format}: the reader's own answer`)
    t.same(readStatements(bytes, null, null), result, `${format}: null content type and format, as absent`)
    t.same(readStatements(bytes, 'text/plain'), result, `${format}: a content type naming no format falls back to the content`)
  }
})

t.test('Content-Type chooses the reader over the content, its parameters ignored', async (t) => {
  for (const format of formats) {
    const { bytes } = files[format]
    t.same(readStatements(bytes, `${mediaTypes[format].toUpperCase()}; charset=utf-8`), files[format].read(bytes), `${format} named by ${mediaTypes[format]}`)
    for (const other of formats.filter((each) => each !== format)) {
      t.equal(okCount(readStatements(bytes, mediaTypes[other])), 'statement_invalid', `${format} bytes sent as ${other}: read as ${other}, refused`)
    }
  }
  t.equal(readStatements(files.camt053.bytes, 'text/xml').ok, true, 'text/xml is camt.053 too')
})

t.test('?format= wins over Content-Type and content', async (t) => {
  t.equal(readStatements(files.bai2.bytes, mediaTypes.mt940, 'bai2').ok, true, 'BAI2 named by ?format= though sent as MT940')
  t.equal(okCount(readStatements(files.bai2.bytes, mediaTypes.bai2, 'mt940')), 'statement_invalid', 'BAI2 bytes read as the MT940 ?format= names')
  t.equal(okCount(readStatements(files.mt940.bytes, undefined, 'camt053')), 'statement_invalid')
})

t.test('a file no format fits: statement_invalid naming the formats', async (t) => {
  const expected = {
    ok: false, code: 'statement_invalid', message: 'The file is none of camt.053, MT940 or BAI2: send Content-Type or ?format=.',
    details: [{ path: 'line 1', message: 'format not recognised' }],
  }
  t.match(readStatements(Buffer.from('date,amount\n2026-11-02,100\n')), expected, 'CSV')
  t.match(readStatements(new Uint8Array(0)), expected, 'empty')
  t.match(readStatements(Buffer.from('   \n\n')), expected, 'blanks only')
  t.match(readStatements(Buffer.from('{"lines":[]}'), 'application/json'), expected, 'a content type of no format, content of none either')
})

t.test('never throws: bytes of any kind read as each format', async (t) => {
  const junk = [Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x81]), Buffer.from('01,'), Buffer.from(':20:'), Buffer.from('<?xml version="1.0"?><Document>'), Buffer.alloc(5000, 0x41)]
  for (const bytes of junk) {
    for (const format of [...formats, null] as const) {
      const result = readStatements(bytes, null, format)
      t.equal(result.ok, false, `${JSON.stringify(bytes.subarray(0, 12).toString('latin1'))} as ${format ?? 'sniffed'}: refused, not thrown`)
      if (!result.ok) t.equal(result.code, 'statement_invalid')
    }
  }
})
