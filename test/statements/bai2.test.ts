/**
 * BAI2 fixtures read to the figures written down by hand from each file (test/fixtures/statements/<format>/README.md
 * says where each file comes from).
 */
import t from 'tap'
import { readBai2 } from '../../src/statements/bai2.ts'
import { checkBalances } from '../../src/statements/balance.ts'
import { figuresOf, fixture, statementsOf } from './fixtures.ts'

t.test('USD: two groups, three accounts, 88 continuations of a 03 and of a 16, funds types 0/V/S/Z', async (t) => {
  const statements = statementsOf(readBai2(fixture('bai2', 'usd-two-groups-continuations.bai')))
  t.same(statements.map(figuresOf), [
    {
      statement_ref: 'FILE42/1/000111222', account: '000111222', currency: 'USD', period: { from: '2026-11-01', to: '2026-11-01' },
      opening: 1500000, closing: 1735025, claimed_movement: 235025, lines: 3, sum: 250000 + 10025 - 25000,
    },
    {
      statement_ref: 'FILE42/1/000333444', account: '000333444', currency: 'USD', period: { from: '2026-11-01', to: '2026-11-01' },
      opening: -5000, closing: 5000, claimed_movement: 10000, lines: 1, sum: 10000,
    },
    {
      // group 2 is as of 11-04; the account's previous statement closed 11-01, so its window starts 11-02
      statement_ref: 'FILE42/2/000111222', account: '000111222', currency: 'USD', period: { from: '2026-11-02', to: '2026-11-04' },
      opening: 1735025, closing: 1733025, claimed_movement: -2000, lines: 1, sum: -2000,
    },
  ])
  t.same(statements[0].entries, [
    { amount: 250000, mark: 'credit', reversal: false, date: '2026-11-01', value_date: null, reference: 'CR-INV-1001', description: 'LOCKBOX DEPOSIT INVOICE 1001', counterparty: null },
    { amount: 10025, mark: 'credit', reversal: false, date: '2026-11-01', value_date: '2026-10-31', reference: 'BR-002', description: 'INCOMING WIRE FROM ACME CORP REMITTANCE INVOICE 1002 PARTIAL', counterparty: null },
    { amount: -25000, mark: 'debit', reversal: false, date: '2026-11-01', value_date: null, reference: 'CHK-5521', description: 'CHECK PAID 5521', counterparty: null },
  ])
  t.equal(checkBalances(statements), null)
})

t.test('JPY (exponent 0), CRLF', async (t) => {
  const statements = statementsOf(readBai2(fixture('bai2', 'jpy-crlf.bai')))
  t.same(statements.map(figuresOf), [{
    statement_ref: 'JP7/1/1234567', account: '1234567', currency: 'JPY', period: { from: '2026-11-04', to: '2026-11-04' },
    opening: 1000000, closing: 838000, claimed_movement: -162000, lines: 3, sum: 250000 - 400000 - 12000,
  }])
  t.same(statements[0].entries.map((entry) => [entry.amount, entry.reference, entry.description]), [
    [250000, 'INV-88', 'FURIKOMI TANAKA SHOJI'], [-400000, 'PAY-11', 'PAYROLL NOVEMBER'], [-12000, 'MH-3', 'TRANSFER FEE'],
  ])
})

t.test('BHD (exponent 3): distributed funds (D), two 88 continuations, an 890 note that is no line, a comma in the text', async (t) => {
  const statements = statementsOf(readBai2(fixture('bai2', 'bhd-distributed-funds.bai')))
  t.same(statements.map(figuresOf), [{
    statement_ref: 'BH1/1/BH67BMAG00001299123456', account: 'BH67BMAG00001299123456', currency: 'BHD', period: { from: '2026-10-01', to: '2026-10-01' },
    opening: 1500250, closing: 1649875, claimed_movement: 149625, lines: 2, sum: 200125 - 50500,
  }])
  t.same(statements[0].entries.map((entry) => [entry.amount, entry.reference, entry.description]), [
    [200125, 'E2E-77', 'ACH CREDIT FROM GULF TRADING INVOICE 77'], [-50500, 'BR-3', 'ACH DEBIT, UTILITY'],
  ])
})

t.test('the BAI2 specification\'s sample file reports no 010/015 ledger balances: refused, naming the account', async (t) => {
  const result = readBai2(fixture('bai2', 'moov-bai2-spec-sample.txt'))
  t.match(result, { ok: false, code: 'statement_invalid', details: [{ path: 'line 3', message: /0123456789 lacks its opening \(010\) or closing \(015\)/ }] })
})

t.test('a bank\'s blocked file (moov-io sample3): several records on one line, a 16 whose text runs onto the next line without 88', async (t) => {
  const statements = statementsOf(readBai2(fixture('bai2', 'moov-blocked-wrapped.txt')))
  t.equal(statements.length, 15, '15 accounts, as its 98 record says')
  const figures = statements.map(figuresOf)
  const zero = { currency: 'USD', period: { from: '2022-09-19', to: '2022-09-19' }, opening: 0, closing: 0, claimed_movement: 0, lines: 0, sum: 0 }
  const seven = { statement_ref: '4/1/1111111', account: '1111111' }
  const eight = { statement_ref: '4/1/11111111', account: '11111111' }
  t.same(figures, [
    { ...zero, ...seven, opening: -3500, closing: -3600, claimed_movement: -100, lines: 6, sum: 2500 + 500 + 100 - 2500 - 600 - 100 },
    { ...zero, ...seven },
    { ...zero, ...seven },
    { ...zero, ...seven, opening: -55703, closing: -86406, claimed_movement: -30703, lines: 2, sum: -27500 - 3203 },
    { ...zero, ...seven, opening: 98547, closing: 98547 },
    { ...zero, ...seven },
    { ...zero, ...seven },
    { ...zero, ...eight, opening: 625266, closing: 610315, claimed_movement: -14951, lines: 6, sum: 2500 + 600 + 600 - 11521 - 4783 - 2347 },
    { ...zero, ...eight, opening: -73135, closing: -78759, claimed_movement: -5624, lines: 4, sum: 215 + 105 - 5857 - 87 },
    { ...zero, ...eight, opening: -4078, closing: 27595, claimed_movement: 31673, lines: 8, sum: 13855 + 11521 + 4783 + 2347 + 87 - 600 - 215 - 105 },
    ...Array.from({ length: 5 }, () => ({ ...zero, ...eight })),
  ])
  t.same(statements[0].entries[1], { amount: 500, mark: 'credit', reversal: false, date: '2022-09-19', value_date: null, reference: null, description: 'TRANSFER   MSPBNA BANK        PPD', counterparty: null }, 'the second record of a line')
  t.same(statements[7].entries[0], {
    amount: 2500, mark: 'credit', reversal: false, date: '2022-09-19', value_date: null, reference: null,
    description: '111111     ACH_SETL           1111111111 111111111111111 1111111111', counterparty: null,
  }, 'the text that ran onto the next physical line, then its 88')
  t.equal(checkBalances(statements), null)
})

t.test('a 03 whose first summary is empty (type code, amount, count, funds type), and 16 records without their closing slash', async (t) => {
  const statements = statementsOf(readBai2(fixture('bai2', 'usd-empty-summary-wrapped-text.bai')))
  t.same(statements.map(figuresOf), [
    {
      statement_ref: 'FILE7/1/107049932', account: '107049932', currency: 'USD', period: { from: '2026-11-04', to: '2026-11-04' },
      opening: 6865898, closing: 6758898, claimed_movement: -107000, lines: 2, sum: -60000 - 47000,
    },
    {
      statement_ref: 'FILE7/1/260000033037', account: '260000033037', currency: 'USD', period: { from: '2026-11-04', to: '2026-11-04' },
      opening: 0, closing: 0, claimed_movement: 0, lines: 0, sum: 0,
    },
  ])
  t.same(statements[0].entries[1], {
    amount: -47000, mark: 'debit', reversal: false, date: '2026-11-04', value_date: null, reference: 'GSV0DL6RKT',
    description: 'Outgoing Wire,To: TEST COMPANY, Remittance Info: "QWERTIOP", Client Ref ID: GSV0DL6RKT, Settled Amt: EUR 322.00 REMI: QWERTIOP', counterparty: null,
  })
  t.equal(checkBalances(statements), null)
})

t.test('a line that is no record after a record ended by its slash is still refused', async (t) => {
  const file = fixture('bai2', 'usd-two-groups-continuations.bai').toString('latin1').replace('16,275,10000,Z,BR-010,,ZBA CREDIT/\n', '16,275,10000,Z,BR-010,,ZBA CREDIT/\nstray text\n')
  t.match(readBai2(Buffer.from(file, 'latin1')), { ok: false, code: 'statement_invalid', details: [{ path: 'line 11', message: /not a BAI2 record/ }] })
})
