/**
 * Text and size in statement files obey the rules of JSON bodies (docs/API.md, "Bank statement formats"):
 * the same lengths, no control character but tab, no unpaired surrogate, at most 10,000 lines a file; a
 * file that breaks one is statement_invalid naming the field. Also: undeclared entities, BAI2 counts.
 */
import t from 'tap'
import { linesAdd, windowOpen } from '../../src/api/schemas/ledger.ts'
import { hasLoneSurrogate } from '../../src/api/schemas/text.ts'
import { statementInputsOf } from '../../src/api/statement-file.ts'
import { readBai2 } from '../../src/statements/bai2.ts'
import { readCamt053 } from '../../src/statements/camt053.ts'
import { fileTextLengthsMax, statementLinesMax } from '../../src/statements/limits.ts'
import { readMt940 } from '../../src/statements/mt940.ts'
import { readStatements } from '../../src/statements/read.ts'
import { fixture, statementsOf } from './fixtures.ts'

const text = (format: 'camt053' | 'mt940' | 'bai2', name: string): string => fixture(format, name).toString('latin1')
const latin1 = (content: string): Buffer => Buffer.from(content, 'latin1')
const utf8 = (content: string): Buffer => Buffer.from(content, 'utf8')
const camt = text('camt053', 'v02-jpy-two-statements-crlf.xml')
const mt940 = text('mt940', 'bhd-three-statements.sta')
const bai2 = text('bai2', 'usd-two-groups-continuations.bai')

t.test('the lengths are the JSON schemas\' own', async (t) => {
  const line = (linesAdd.properties.lines.items as any).properties
  const maxOf = (schema: any): number => (schema.anyOf?.[0] ?? schema).maxLength
  t.equal(fileTextLengthsMax.reference, maxOf(line.reference))
  t.equal(fileTextLengthsMax.description, maxOf(line.description))
  t.equal(fileTextLengthsMax.counterpartyName, maxOf(line.counterparty.anyOf[0].properties.name))
  t.equal(fileTextLengthsMax.counterpartyAccount, maxOf(line.counterparty.anyOf[0].properties.account))
  t.equal(fileTextLengthsMax.statementRef, maxOf((windowOpen.properties as any).statement_ref))
  t.equal(statementLinesMax, (linesAdd.properties.lines as any).maxItems)
})

t.test('over-long text in a camt.053 file is statement_invalid naming the field', async (t) => {
  const longId = camt.replace('<Id>JP-STMT-0001</Id>', `<Id>${'S'.repeat(501)}</Id>`)
  t.match(readCamt053(latin1(longId)), { ok: false, code: 'statement_invalid', details: [{ path: '/statements/0/statement_ref', message: /501 characters, at most 500/ }] })
  t.ok(readCamt053(latin1(camt.replace('<Id>JP-STMT-0001</Id>', `<Id>${'S'.repeat(500)}</Id>`))).ok, '500 characters pass')
  const longInfo = camt.replace('<AddtlNtryInf>Rent November</AddtlNtryInf>', `<AddtlNtryInf>${'x'.repeat(2_000_000)}</AddtlNtryInf>`)
  t.match(readCamt053(latin1(longInfo)), { ok: false, code: 'statement_invalid', details: [{ path: '/statements/0/lines/1/description', message: /2000000 characters, at most 1000/ }] })
  const longName = camt.replace('<Nm>Tanaka Shoji KK</Nm>', `<Nm>${'N'.repeat(501)}</Nm>`)
  t.match(readCamt053(latin1(longName)), { ok: false, details: [{ path: '/statements/0/lines/0/counterparty/name' }] })
  const longAccount = camt.replace('<Id>7654321</Id>', `<Id>${'7'.repeat(101)}</Id>`)
  t.match(readCamt053(latin1(longAccount)), { ok: false, details: [{ path: '/statements/0/lines/0/counterparty/account' }] })
  const longRef = camt.replace('<AcctSvcrRef>JPREF-1</AcctSvcrRef>', `<AcctSvcrRef>${'R'.repeat(501)}</AcctSvcrRef>`)
  t.match(readCamt053(latin1(longRef)), { ok: false, details: [{ path: '/statements/0/lines/0/reference' }] })
  const longIban = camt.replaceAll('<Id><Othr><Id>1234567</Id></Othr></Id>', `<Id><Othr><Id>${'1'.repeat(65)}</Id></Othr></Id>`)
  t.match(readCamt053(latin1(longIban)), { ok: false, details: [{ path: '/statements/0/account', message: /65 characters, at most 64/ }] })
})

t.test('over-long text in MT940 and BAI2 files too', async (t) => {
  const longDetails = mt940.replace(':86:Electricity, October', `:86:${'E'.repeat(1001)}`)
  t.match(readMt940(latin1(longDetails)), { ok: false, code: 'statement_invalid', details: [{ path: '/statements/0/lines/1/description' }] })
  const longText = bai2.replace('CHECK PAID 5522/', `${'C'.repeat(1001)}/`)
  t.match(readBai2(latin1(longText)), { ok: false, code: 'statement_invalid', details: [{ path: '/statements/2/lines/0/description' }] })
})

t.test('control characters in camt.053 character references are refused; tab and layout line breaks are not', async (t) => {
  for (const reference of ['&#27;[31m', '&#0;', '&#x1F;', '&#xFFFE;']) {
    const bad = camt.replace('<AddtlNtryInf>Rent November</AddtlNtryInf>', `<AddtlNtryInf>Rent ${reference} November</AddtlNtryInf>`)
    t.match(readCamt053(latin1(bad)), { ok: false, code: 'statement_invalid', details: [{ path: /^line \d+$/, message: /is not a character XML allows/ }] }, `${reference}: no character of XML at all`)
  }
  for (const reference of ['a&#13;b', '&#x0A;', '&#x9B;', '&#127;']) {
    const bad = camt.replace('<AddtlNtryInf>Rent November</AddtlNtryInf>', `<AddtlNtryInf>Rent ${reference} November</AddtlNtryInf>`)
    t.match(readCamt053(latin1(bad)), { ok: false, code: 'statement_invalid', details: [{ path: '/statements/0/lines/1/description', message: /control characters/ }] }, reference)
  }
  const badRef = camt.replace('<AcctSvcrRef>JPREF-1</AcctSvcrRef>', '<AcctSvcrRef>JP&#155;REF</AcctSvcrRef>')
  t.match(readCamt053(latin1(badRef)), { ok: false, details: [{ path: '/statements/0/lines/0/reference', message: /control characters/ }] })
  const tab = camt.replace('<AddtlNtryInf>Rent November</AddtlNtryInf>', '<AddtlNtryInf>Rent&#9;November</AddtlNtryInf>')
  t.equal(statementsOf(readCamt053(latin1(tab)))[0].entries[1].description, 'Rent\tNovember', 'tab is kept, as in JSON')
  const wrapped = camt.replace('<AddtlNtryInf>Rent November</AddtlNtryInf>', '<AddtlNtryInf>Rent\r\n          November</AddtlNtryInf>')
  t.equal(statementsOf(readCamt053(latin1(wrapped)))[0].entries[1].description, 'Rent November', 'a line break the file is laid out with is a space')
})

t.test('a surrogate written as a character reference is refused; an astral character is kept', async (t) => {
  for (const reference of ['&#xD800;', '&#56320;', '&#xDBFF;x']) {
    const bad = camt.replace('<AcctSvcrRef>JPREF-1</AcctSvcrRef>', `<AcctSvcrRef>A${reference}B</AcctSvcrRef>`)
    t.match(readCamt053(latin1(bad)), { ok: false, code: 'statement_invalid', details: [{ path: /^line \d+$/, message: /a surrogate/ }] }, reference)
  }
  const pair = camt.replace('<AcctSvcrRef>JPREF-1</AcctSvcrRef>', '<AcctSvcrRef>A&#xD83D;&#xDE00;B</AcctSvcrRef>')
  t.match(readCamt053(latin1(pair)), { ok: false, details: [{ message: /a surrogate/ }] }, 'a character reference names one code point: two surrogate references are two surrogates, not a pair')
  const emoji = camt.replace('<AcctSvcrRef>JPREF-1</AcctSvcrRef>', '<AcctSvcrRef>A&#x1F600;B</AcctSvcrRef>')
  t.equal(statementsOf(readCamt053(latin1(emoji)))[0].entries[0].reference, 'A\u{1F600}B')
})

t.test('raw control bytes in MT940 :20:, :25:, :61: and :86: are refused', async (t) => {
  const cases: Array<[string, string, RegExp]> = [
    [':86:Electricity, October', ':86:Electricity\u001b[31m, October', /lines\/1\/description/],
    [':86:Electricity, October', ':86:Electricity\u0000, October', /lines\/1\/description/],
    [':86:Electricity, October', ':86:Electricity\r, October', /lines\/1\/description/],
    [':61:2610021002D50,5NMSCNONREF//BMAG-2', ':61:2610021002D50,5NMSCREF\u0007X//BMAG-2', /lines\/1\/reference/],
    [':20:BMAG261002\n:25:BH67', ':20:BMAG\u001b261002\n:25:BH67', /statements\/0\/statement_ref/],
    [':25:BH67BMAG00001299123456\n:28C:12/1', ':25:BH67BMAG\u0081001299123456\n:28C:12/1', /statements\/0\/account/],
  ]
  for (const [from, to, path] of cases) {
    t.ok(mt940.includes(from), from)
    t.match(readMt940(latin1(mt940.replace(from, to))), { ok: false, code: 'statement_invalid', details: [{ path, message: /control characters/ }] }, JSON.stringify(to))
  }
  const twoLines = mt940.replace(':86:Electricity, October', ':86:Electricity,\nOctober')
  t.equal(statementsOf(readMt940(latin1(twoLines)))[0].entries[1].description, 'Electricity, October', 'a field on two lines is one text')
})

t.test('BAI2 text with a control byte is refused', async (t) => {
  t.match(readBai2(latin1(bai2.replace('CHECK PAID 5522/', 'CHECK\u001bPAID 5522/'))), { ok: false, code: 'statement_invalid', details: [{ path: '/statements/2/lines/0/description', message: /control characters/ }] })
})

t.test('an undeclared entity makes the XML not well-formed', async (t) => {
  for (const entity of ['&xxe;', '&nbsp;', '&lol9;']) {
    const bad = camt.replace('<AddtlNtryInf>Rent November</AddtlNtryInf>', `<AddtlNtryInf>Rent ${entity}</AddtlNtryInf>`)
    t.match(readCamt053(latin1(bad)), { ok: false, code: 'statement_invalid', details: [{ path: /^line \d+$/, message: new RegExp(`undeclared entity "${entity}"`) }] }, entity)
  }
  const inAttribute = camt.replace('<Amt Ccy="JPY">150000</Amt>', '<Amt Ccy="&xxe;">150000</Amt>')
  t.match(readCamt053(latin1(inAttribute)), { ok: false, code: 'statement_invalid', details: [{ message: /undeclared entity "&xxe;"/ }] }, 'in an attribute too')
  const fine = camt.replace('<AddtlNtryInf>Rent November</AddtlNtryInf>', '<AddtlNtryInf>Rent &amp; &lt;November&gt; &#65;&#x42; &quot;&apos;</AddtlNtryInf>')
  t.equal(statementsOf(readCamt053(latin1(fine)))[0].entries[1].description, 'Rent & <November> AB "\'', 'the predefined ones and character references are read')
  const bare = camt.replace('<AddtlNtryInf>Rent November</AddtlNtryInf>', '<AddtlNtryInf>Rent & November</AddtlNtryInf>')
  t.match(readCamt053(latin1(bare)), { ok: false, code: 'statement_invalid' }, 'a bare ampersand is not XML either')
  const huge = camt.replace('<AddtlNtryInf>Rent November</AddtlNtryInf>', '<AddtlNtryInf>&#x110000;</AddtlNtryInf>')
  t.match(readCamt053(latin1(huge)), { ok: false, code: 'statement_invalid', details: [{ message: /not a character XML allows/ }] }, 'a reference past U+10FFFF')
})

t.test('BAI2 counts beyond the format\'s width are refused, not read as floats', async (t) => {
  const cases: Array<[string, string]> = [
    ['99,+7287125,2,19/', '99,+7287125,2,99999999999999999999/'],
    ['99,+7287125,2,19/', '99,+7287125,99999999999999999999,19/'],
    ['49,+3805075,6/', '49,+3805075,99999999999999999999/'],
    ['49,+3805075,6/', '49,+3805075,6.0/'],
    ['49,+3805075,6/', '49,+3805075,0x6/'],
    ['49,+3805075,6/', '49,+3805075,6e0/'],
  ]
  for (const [from, to] of cases) t.match(readBai2(latin1(bai2.replace(from, to))), { ok: false, code: 'statement_invalid', details: [{ message: /count|records/ }] }, to)
  const distribution = bai2.replace('16,475,2000,0,BR-020', '16,475,2000,D,99999999999999999999,BR-020')
  t.match(readBai2(latin1(distribution)), { ok: false, code: 'statement_invalid', details: [{ message: /distribution count/ }] }, 'a funds-type D count')
})

t.test('a file holds at most 10,000 lines, as a JSON upload', async (t) => {
  const ntry = (index: number): string => `<Ntry><Amt Ccy="JPY">1</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2026-11-03</Dt></BookgDt><NtryRef>N${index}</NtryRef></Ntry>`
  const file = (count: number): Buffer => latin1(`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><Stmt><Id>MANY</Id><Acct><Id><Othr><Id>1</Id></Othr></Id><Ccy>JPY</Ccy></Acct>`
    + `<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="JPY">0</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-02</Dt></Dt></Bal>`
    + `<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="JPY">${count}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-03</Dt></Dt></Bal>`
    + `${Array.from({ length: count }, (_, index) => ntry(index)).join('')}</Stmt></BkToCstmrStmt></Document>`)
  t.equal(statementsOf(readStatements(file(10_000)))[0].entries.length, 10_000, '10,000 lines pass')
  t.match(readStatements(file(10_001)), { ok: false, code: 'statement_invalid', details: [{ path: '/statements/0/lines', message: /10001 lines.*at most 10000/ }] })
  const lines = Array.from({ length: 5_001 }, (_, index) => `:61:2610021002C0,001NTRFREF${index}`).join('\n')
  const twoStatements = `:20:A\n:25:ACC\n:28C:1/1\n:60F:C261001BHD0,\n${lines}\n:62F:C261002BHD5,001\n-\n:20:B\n:25:ACC2\n:28C:1/1\n:60F:C261001BHD0,\n${lines}\n:62F:C261002BHD5,001\n-\n`
  t.match(readMt940(utf8(twoStatements)), { ok: false, code: 'statement_invalid', details: [{ path: '/statements/1/lines', message: /10002 lines.*at most 10000/ }] }, 'counted over the whole file')
})

t.test('the default label is cut to 200 characters without splitting a surrogate pair', async (t) => {
  const file = camt.replace('<Id>JP-STMT-0001</Id>', `<Id>${'S'.repeat(199)}&#x1F600;</Id>`)
  const statements = statementsOf(readCamt053(latin1(file)))
  const [input] = statementInputsOf(statements, null)
  t.equal(input.label, 'S'.repeat(199), 'the pair that does not fit is left out whole')
  t.notOk(hasLoneSurrogate(input.label))
})
