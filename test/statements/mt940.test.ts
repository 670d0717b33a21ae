/**
 * MT940 fixtures read to the figures written down by hand from each file (test/fixtures/statements/<format>/README.md
 * says where each file comes from).
 */
import t from 'tap'
import { checkBalances } from '../../src/statements/balance.ts'
import { readMt940 } from '../../src/statements/mt940.ts'
import { figuresOf, fixture, statementsOf } from './fixtures.ts'

t.test('betterplace SEPA file: 20 statements, structured :86:, an RC reversal', async (t) => {
  const statements = statementsOf(readMt940(fixture('mt940', 'betterplace-sepa-mt9401.sta')))
  t.equal(statements.length, 20)
  t.equal(checkBalances(statements), null, 'all 20 balance')
  t.same(figuresOf(statements[0]), {
    statement_ref: 'T089413946000001/00004', account: '50880050/0194774600888', currency: 'EUR',
    period: { from: '2007-09-04', to: '2007-09-04' },
    opening: -123471836, closing: -123762823, claimed_movement: -290987,
    lines: 7, sum: 30000 + 33533 + 1500000 + 6629508 + 91531155 - 20488 - 99994695,
  })
  t.same(statements[0].entries[0], {
    amount: 30000, mark: 'credit', reversal: false, date: '2007-09-04', value_date: '2007-09-04',
    reference: 'TFNR 40005 00005',
    description: 'EREF+TFNR 40005 00005MTLG:Grund nicht spezifiziert Reject aus SEPA-Ueberweisungsauftrag',
    counterparty: null,
  })
  t.same(statements[0].entries[5], {
    amount: -20488, mark: 'credit', reversal: true, date: '2007-09-04', value_date: '2007-09-04',
    reference: null, description: '0904059003', counterparty: null,
  }, 'RC: the reversal of a credit, debited')
  t.match(statements[1].entries[0], {
    amount: 1500005, reference: 'EndToEndIdTFNR2000400001',
    counterparty: { name: 'Richter Renate 70 Zeichen Beginn Fuellzeichen xxxxxxxx', account: 'DE42100100100043921105' },
  }, '?31 account, ?32 + ?33 name')
})

t.test('SWIFT envelope, CRLF, JPY (exponent 0): two pages (:62M:/:60M:) are one statement', async (t) => {
  const [statement, ...rest] = statementsOf(readMt940(fixture('mt940', 'swift-envelope-pages-jpy-crlf.sta')))
  t.equal(rest.length, 0)
  t.same(figuresOf(statement), {
    statement_ref: 'JPSTMT1106/77', account: 'MHCBJPJT/1234567', currency: 'JPY',
    period: { from: '2026-11-05', to: '2026-11-06' },
    opening: 1000000, closing: 841000, claimed_movement: -159000, lines: 4, sum: 250000 - 12000 + 3000 - 400000,
  })
  t.same(statement.entries.map((entry) => [entry.amount, entry.mark, entry.reversal, entry.reference, entry.description]), [
    [250000, 'credit', false, 'INV-2026-1', 'PAYMENT FROM TANAKA SHOJI'],
    [-12000, 'debit', false, 'MHCB0002', 'TRANSFER FEE'],
    [3000, 'debit', true, 'MHCB0003', 'FEE REFUND, REVERSAL OF MHCB0002'],
    [-400000, 'debit', false, 'PAYROLL-11', 'PAYROLL NOVEMBER'],
  ], 'NONREF gives way to the bank reference; the :61: second line is the description when no :86: follows')
})

t.test('BHD (exponent 3): three statements, two accounts, the third following the first', async (t) => {
  const statements = statementsOf(readMt940(fixture('mt940', 'bhd-three-statements.sta')))
  t.same(statements.map(figuresOf), [
    {
      statement_ref: 'BMAG261002/12', account: 'BH67BMAG00001299123456', currency: 'BHD',
      period: { from: '2026-10-02', to: '2026-10-02' },
      opening: 1500250, closing: 1649875, claimed_movement: 149625, lines: 2, sum: 200125 - 50500,
    },
    {
      statement_ref: 'BMAG261002/4', account: 'BH29BMAG00001299654321', currency: 'BHD',
      period: { from: '2026-10-02', to: '2026-10-02' },
      opening: -10000, closing: 1, claimed_movement: 10001, lines: 1, sum: 10001,
    },
    {
      statement_ref: 'BMAG261005/13', account: 'BH67BMAG00001299123456', currency: 'BHD',
      // the day after the first statement's closing (10-02), not after its own opening (10-03)
      period: { from: '2026-10-03', to: '2026-10-05' },
      opening: 1649875, closing: 1649875, claimed_movement: 0, lines: 0, sum: 0,
    },
  ])
  t.same(statements[0].entries[0], {
    amount: 200125, mark: 'credit', reversal: false, date: '2026-10-02', value_date: '2026-10-02',
    reference: 'E2E-77', description: 'EREF+E2E-77 SVWZ+Invoice 77 October',
    counterparty: { name: 'Gulf Trading WLL', account: 'BH29BMAG00001299654321' },
  })
  t.match(statements[0].entries[1], { amount: -50500, reference: 'BMAG-2', description: 'Electricity, October' })
})

t.test('jejik generic file: :28: without C, empty :86:, two statements', async (t) => {
  const statements = statementsOf(readMt940(fixture('mt940', 'jejik-generic.sta')))
  t.same(statements.map(figuresOf), [
    { statement_ref: 'GENERIC/1', account: '11111111', currency: 'EUR', period: { from: '2011-01-02', to: '2011-02-01' }, opening: 10000, closing: 9000, claimed_movement: -1000, lines: 1, sum: -1000 },
    { statement_ref: 'GENERIC/2', account: '11111111', currency: 'EUR', period: { from: '2011-02-02', to: '2011-03-01' }, opening: 9000, closing: 8000, claimed_movement: -1000, lines: 1, sum: -1000 },
  ])
  t.same(statements[0].entries[0], { amount: -1000, mark: 'debit', reversal: false, date: '2011-01-01', value_date: '2011-01-01', reference: null, description: null, counterparty: null })
})

t.test('Citi file: entry dates written as four spaces, funds code D, zero-amount lines, no final newline', async (t) => {
  const [statement] = statementsOf(readMt940(fixture('mt940', 'citi-usd.sta')))
  t.same(figuresOf(statement), {
    statement_ref: 'asdfsdfdsf/1', account: '123456789', currency: 'USD',
    period: { from: '2024-03-12', to: '2024-03-12' }, // opening and closing both 2024-03-12
    opening: 1737667, closing: 1623392, claimed_movement: -114275, lines: 5, sum: -21239 - 36928 + 0 + 0 - 56108,
  })
  t.same(statement.entries[0], {
    amount: -21239, mark: 'debit', reversal: false, date: '2024-03-12', value_date: '2024-03-12',
    reference: null, description: '/PT/FT/PY/SOMETHING FOO BAR          112233 123456789', counterparty: null,
  })
  t.match(statement.entries[2], { amount: 0, mark: 'credit', description: '/ABC/DEF/C 37897,00 BAI CD 025' })
})

t.test('ING structured :86: (the example of ING\'s MT940 Structured specification): /EREF/, /CNTP/, /REMI/ read into reference, counterparty, description', async (t) => {
  const statements = statementsOf(readMt940(fixture('mt940', 'ginger-ing-structured-spec.sta')))
  t.same(statements.map(figuresOf), [{
    statement_ref: 'P140220000000001/00000', account: 'NL69INGB0123456789EUR', currency: 'EUR', period: { from: '2014-02-20', to: '2014-02-20' },
    opening: 66223, closing: 56435, claimed_movement: -9788, lines: 8, sum: 156 - 157 + 157 - 114 + 145 - 1275 + 3200 - 11900,
  }])
  const [first, second, third, fourth, fifth, , seventh, eighth] = statements[0].entries
  t.same(first, {
    amount: 156, mark: 'credit', reversal: false, date: '2014-02-20', value_date: '2014-02-20', reference: 'EV12341REP1231456T1234',
    description: 'EV10001REP1000000T1000', counterparty: { name: 'ING BANK NV INZAKE WEB', account: 'NL32INGB0000012345' },
  }, '/EREF/ the reference, /CNTP/ account and name (its BIC INGBNL2A wrapped over two lines), /REMI/USTD// the text')
  t.match(second, { amount: -157, reference: 'M000000003333333', description: 'TOTAAL 1 VZ', counterparty: null }, 'a batch: /PREF/ (payment information id) the reference')
  t.match(third, { amount: 157, reference: '20120123456789', description: 'Factuurnr 123456 Klantnr 00123', counterparty: { name: 'J.Janssen', account: 'NL32INGB0000012345' } }, 'a return (/RTRN/)')
  t.match(fourth, { amount: -114, reference: 'EV123REP123412T1234', counterparty: { name: 'ING Bank N.V. inzake WeB', account: 'NL32INGB0000012345' } }, 'with /MARF/ and /CSID/ (a direct debit) between')
  t.match(fifth, { description: 'TOTAAL      1 POSTEN' }, 'text that wraps is joined as written')
  t.match(seventh, { amount: 3200, reference: '15814016000676480', description: '9001123412341234', counterparty: { name: 'J.Janssen' } }, '/REMI/STRD/CUR/: the structured creditor reference')
  t.match(eighth, { amount: -11900, counterparty: { name: 'INGBANK NV', account: 'NL32INGB0000012345' } }, 'the file wraps "ING BANK NV" at the space, which it drops: read as written')
  t.equal(checkBalances(statements), null)
})

t.test('Rabobank\'s older structured :86: (/BENM//NAME/…/REMI/) names the counterparty; free :86: text is unchanged', async (t) => {
  const file = ':20:940S130101\n:25:NL71RABO0123456789\n:28C:0\n:60F:C130101EUR1000,00\n:61:130101D25,00N102EREF\nNL70ABNA0987654321\n'
    + ':86:/EREF/01-01-2013 12:00 0030000987654321/BENM//NAME/CONTRA ACCOUN\nT HOLDER/REMI/Invoice 7/ISDT/2013-07-11\n:62F:C130101EUR975,00\n'
  const [line] = statementsOf(readMt940(Buffer.from(file, 'latin1')))[0].entries
  t.same([line.reference, line.description, line.counterparty], ['01-01-2013 12:00 0030000987654321', 'Invoice 7', { name: 'CONTRA ACCOUNT HOLDER', account: null }])
  const free = statementsOf(readMt940(fixture('mt940', 'swift-envelope-pages-jpy-crlf.sta')))[0].entries
  t.ok(free.every((entry) => entry.counterparty === null), 'no structure, no counterparty')
})
