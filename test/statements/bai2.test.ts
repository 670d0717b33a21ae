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
