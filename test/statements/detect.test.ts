/** The format of a statement file: `?format=` over Content-Type over the content (docs/API.md, Bank statement formats). */
import t from 'tap'
import { detectFormat, formatOfContent, formatOfContentType, isStatementFormat } from '../../src/statements/detect.ts'
import { readStatements } from '../../src/statements/read.ts'
import { fixture } from './fixtures.ts'

t.test('Content-Type names the format', async (t) => {
  t.equal(formatOfContentType('application/xml'), 'camt053')
  t.equal(formatOfContentType('text/xml; charset=utf-8'), 'camt053')
  t.equal(formatOfContentType('Application/X-MT940'), 'mt940')
  t.equal(formatOfContentType('application/x-bai2'), 'bai2')
  t.equal(formatOfContentType('application/octet-stream'), null)
  t.equal(formatOfContentType(undefined), null)
})

t.test('the content names the format: every fixture', async (t) => {
  const cases: Array<['camt053' | 'mt940' | 'bai2', string]> = [
    ['camt053', 'v08-kwd-batch-reversal.xml'], ['camt053', 'v02-jpy-two-statements-crlf.xml'], ['camt053', 'genkgo-v02-multi-statement.xml'],
    ['mt940', 'betterplace-sepa-mt9401.sta'], ['mt940', 'swift-envelope-pages-jpy-crlf.sta'], ['mt940', 'bhd-three-statements.sta'], ['mt940', 'jejik-generic.sta'],
    ['bai2', 'usd-two-groups-continuations.bai'], ['bai2', 'jpy-crlf.bai'], ['bai2', 'bhd-distributed-funds.bai'],
  ]
  for (const [format, name] of cases) t.equal(formatOfContent(fixture(format, name)), format, name)
  t.equal(formatOfContent(Buffer.from('\uFEFF  <?xml version="1.0"?><Document/>')), 'camt053', 'after a BOM and blanks')
  t.equal(formatOfContent(Buffer.from('ABNANL2A\n940\nABNANL2A\n:20:ABN AMRO BANK NV\n')), 'mt940', 'bank header lines before :20:')
  t.equal(formatOfContent(Buffer.from('hello')), null)
})

t.test('?format= wins over Content-Type, which wins over the content', async (t) => {
  const mt940 = fixture('mt940', 'jejik-generic.sta')
  t.equal(detectFormat(mt940), 'mt940')
  t.equal(detectFormat(mt940, 'application/x-bai2'), 'bai2')
  t.equal(detectFormat(mt940, 'application/x-bai2', 'mt940'), 'mt940')
  t.match(readStatements(mt940, 'application/xml'), { ok: false, code: 'statement_invalid' }, 'read as the format named, not guessed')
  t.match(readStatements(mt940, 'application/octet-stream'), { ok: true }, 'a type naming no format falls back to the content')
})

t.test('?format= values', async (t) => {
  t.ok(['camt053', 'mt940', 'bai2'].every(isStatementFormat))
  t.notOk(isStatementFormat('camt054'))
  t.notOk(isStatementFormat('CAMT053'))
})
