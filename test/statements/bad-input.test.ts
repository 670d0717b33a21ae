/** Bad statement files: each answers statement_invalid (or the balance check statement_unbalanced), saying where; none throws. */
import fc from 'fast-check'
import t from 'tap'
import { readBai2 } from '../../src/statements/bai2.ts'
import { checkBalances } from '../../src/statements/balance.ts'
import { readCamt053 } from '../../src/statements/camt053.ts'
import { readMt940 } from '../../src/statements/mt940.ts'
import { readStatements } from '../../src/statements/read.ts'
import { fixture, statementsOf } from './fixtures.ts'

const text = (format: 'camt053' | 'mt940' | 'bai2', name: string): string => fixture(format, name).toString('latin1')
const bytes = (content: string): Buffer => Buffer.from(content, 'latin1')

t.test('truncated files', async (t) => {
  const camt = text('camt053', 'v08-kwd-batch-reversal.xml')
  t.match(readCamt053(bytes(camt.slice(0, camt.indexOf('<ns2:Ntry>') + 200))), { ok: false, code: 'statement_invalid', message: /truncated/, details: [{ path: /^line \d+$/ }] })
  const mt940 = text('mt940', 'bhd-three-statements.sta')
  t.match(readMt940(bytes(mt940.slice(0, mt940.indexOf(':62F:')))), { ok: false, code: 'statement_invalid', details: [{ path: 'line 1', message: /62F/ }] })
  const bai2 = text('bai2', 'usd-two-groups-continuations.bai')
  t.match(readBai2(bytes(bai2.slice(0, bai2.indexOf('98,+3472050')))), { ok: false, code: 'statement_invalid', details: [{ path: 'line 17', message: /98 record is due: truncated/ }] })
})

t.test('XML that is not camt.053, and camt.054 instead of camt.053', async (t) => {
  t.match(readCamt053(bytes('<?xml version="1.0"?><html><body>statement</body></html>')), { ok: false, code: 'statement_invalid', details: [{ path: '/', message: /root element is html/ }] })
  const pain = '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"><CstmrCdtTrfInitn/></Document>'
  t.match(readCamt053(bytes(pain)), { ok: false, code: 'statement_invalid', details: [{ path: '/Document', message: /no BkToCstmrStmt/ }] })
  t.match(readCamt053(fixture('camt053', 'genkgo-camt054-v2.xml')), {
    ok: false, code: 'statement_invalid', details: [{ path: '/Document/BkToCstmrDbtCdtNtfctn', message: /camt\.054 .*not a camt\.053/ }],
  })
  const version01 = text('camt053', 'v02-jpy-two-statements-crlf.xml').replace('camt.053.001.02', 'camt.053.001.01')
  t.match(readCamt053(bytes(version01)), { ok: false, details: [{ message: /not camt\.053 version 001\.02 or later/ }] })
  t.match(readStatements(bytes('just some text\n')), { ok: false, code: 'statement_invalid', message: /none of camt\.053, MT940 or BAI2/ })
})

t.test('an XML bomb (billion laughs) is refused at its DOCTYPE, nothing expanded', async (t) => {
  const levels = Array.from({ length: 9 }, (_, level) => `<!ENTITY lol${level + 1} "${`&lol${level};`.repeat(10)}">`).join('\n')
  const bomb = `<?xml version="1.0"?>\n<!DOCTYPE Document [\n<!ENTITY lol0 "lol">\n${levels}\n]>\n<Document><BkToCstmrStmt><Stmt><Id>&lol9;</Id></Stmt></BkToCstmrStmt></Document>`
  t.match(readCamt053(bytes(bomb)), { ok: false, code: 'statement_invalid', details: [{ path: 'line 2', message: /may not declare a DOCTYPE/ }] })
  t.match(readStatements(bytes(bomb), 'application/xml'), { ok: false, code: 'statement_invalid' })
  const external = '<?xml version="1.0"?><!doctype Document SYSTEM "file:///etc/passwd"><Document/>'
  t.match(readCamt053(bytes(external)), { ok: false, details: [{ message: /DOCTYPE/ }] }, 'an external entity too, whatever the case')
})

t.test('XML nested deeper than the parser allows is refused, not thrown', async (t) => {
  const deep = `<Document>${'<a>'.repeat(5000)}${'</a>'.repeat(5000)}</Document>`
  t.match(readCamt053(bytes(deep)), { ok: false, code: 'statement_invalid', message: /parser refuses/ })
})

t.test('an amount with more decimals than the currency allows', async (t) => {
  const camt = text('camt053', 'v02-jpy-two-statements-crlf.xml').replace('<Amt Ccy="JPY">150000</Amt>', '<Amt Ccy="JPY">150000.5</Amt>')
  t.match(readCamt053(bytes(camt)), { ok: false, code: 'statement_invalid', details: [{ path: '/Document/BkToCstmrStmt/Stmt[1]/Ntry[1]/Amt', message: /1 decimals, JPY allows 0/ }] })
  const mt940 = text('mt940', 'bhd-three-statements.sta').replace('D50,5N', 'D50,5001N')
  t.match(readMt940(bytes(mt940)), { ok: false, code: 'statement_invalid', details: [{ path: 'line 7', message: /4 decimals, BHD allows 3/ }] })
})

t.test('an MT940 statement without :62F:', async (t) => {
  const withoutFinal = text('mt940', 'jejik-generic.sta').replace(':62F:C110301EUR80,00\n', '')
  t.match(readMt940(bytes(withoutFinal)), { ok: false, code: 'statement_invalid', details: [{ path: 'line 9', message: /62F/ }] })
  const endsOnIntermediate = text('mt940', 'swift-envelope-pages-jpy-crlf.sta').replace(':62F:C261106JPY841000,', ':62M:C261106JPY841000,')
  t.match(readMt940(bytes(endsOnIntermediate)), { ok: false, details: [{ message: /no final closing balance :62F:/ }] })
})

t.test('BAI2 record counts and control totals in 49, 98 and 99 are checked', async (t) => {
  const file = text('bai2', 'usd-two-groups-continuations.bai')
  const cases: Array<[string, string, string, RegExp]> = [
    ['49,+3805075,6/', '49,+3805075,5/', 'line 8', /account trailer counts "5" records, the account has 6/],
    ['98,+3815075,2,11/', '98,+3815075,2,12/', 'line 12', /group trailer counts "12" records, the group has 11/],
    ['98,+3815075,2,11/', '98,+3815075,3,11/', 'line 12', /counts "3" accounts, the group has 2/],
    ['99,+7287125,2,19/', '99,+7287125,2,18/', 'line 19', /file trailer counts "18" records, the file has 19/],
    ['99,+7287125,2,19/', '99,+7287125,1,19/', 'line 19', /counts "1" groups, the file has 2/],
    ['49,10000,3/', '49,10001,3/', 'line 11', /account control total "10001" is not the sum of its amounts, 10000/],
    ['99,+7287125,2,19/', '99,+7287126,2,19/', 'line 19', /file control total/],
  ]
  for (const [from, to, path, message] of cases) {
    t.match(readBai2(bytes(file.replace(from, to))), { ok: false, code: 'statement_invalid', details: [{ path, message }] }, `${from} -> ${to}`)
  }
})

t.test('the balance check: opening + Σ lines = closing, per statement', async (t) => {
  const statements = statementsOf(readCamt053(fixture('camt053', 'v02-jpy-two-statements-crlf.xml')))
  t.equal(checkBalances(statements), null)
  const unbalanced = [statements[0], { ...statements[1], closing: { ...statements[1].closing, amount: 1610001 } }]
  const result = checkBalances(unbalanced)
  t.match(result, { ok: false, code: 'statement_unbalanced', details: [{ path: '/statements/1', message: /opening 617600 \+ sum of lines 992400 = 1610000, not the closing 1610001/ }] })
  t.same(result?.unbalanced, [{ statement: 1, opening: 617600, sum: 992400, closing: 1610001 }])
  const huge = { ...statements[0], entries: [statements[0].entries[0], { ...statements[0].entries[0], amount: Number.MAX_SAFE_INTEGER }] }
  t.match(checkBalances([huge]), { code: 'amount_out_of_range' })
})

t.test('a file whose second statement is bad is refused whole', async (t) => {
  const camt = text('camt053', 'v02-jpy-two-statements-crlf.xml').replace('<Amt Ccy="JPY">7600</Amt>', '<Amt Ccy="JPY">7600.5</Amt>')
  t.match(readCamt053(bytes(camt)), { ok: false, details: [{ path: '/Document/BkToCstmrStmt/Stmt[2]/Ntry[1]/Amt' }] })
  const mt940 = text('mt940', 'bhd-three-statements.sta').replace(':60F:D261001BHD10,000', ':60F:D261301BHD10,000')
  t.match(readMt940(bytes(mt940)), { ok: false, details: [{ path: 'line 14', message: /261301 is not a calendar date/ }] })
  const bai2 = text('bai2', 'usd-two-groups-continuations.bai').replace('16,475,2000,0,', '16,775,2000,0,')
  t.match(readBai2(bytes(bai2)), { ok: false, details: [{ path: 'line 16', message: /neither a credit/ }] })
})

t.test('no input makes a reader throw: random bytes and every fixture cut anywhere', async () => {
  const fixtures = [fixture('camt053', 'v08-kwd-batch-reversal.xml'), fixture('mt940', 'swift-envelope-pages-jpy-crlf.sta'), fixture('bai2', 'bhd-distributed-funds.bai')]
  fc.assert(fc.property(fc.constantFrom(...fixtures), fc.nat(), fc.uint8Array({ maxLength: 40 }), (file, cut, noise) => {
    const damaged = Buffer.concat([file.subarray(0, cut % (file.length + 1)), noise])
    for (const format of ['camt053', 'mt940', 'bai2'] as const) {
      const result = readStatements(damaged, null, format)
      if (!result.ok && result.code !== 'statement_invalid') return false
    }
    return true
  }), { numRuns: 300 })
})
