/**
 * camt.053 fixtures read to the figures written down by hand from each file (test/fixtures/statements/<format>/README.md
 * says where each file comes from).
 */
import t from 'tap'
import { checkBalances } from '../../src/statements/balance.ts'
import { readCamt053 } from '../../src/statements/camt053.ts'
import { figuresOf, fixture, statementsOf } from './fixtures.ts'

t.test('v08, KWD (exponent 3), prefixed namespace: a batch booking, a reversal, a fee, a pending entry left out', async (t) => {
  const [statement, ...rest] = statementsOf(readCamt053(fixture('camt053', 'v08-kwd-batch-reversal.xml')))
  t.equal(rest.length, 0)
  t.same(figuresOf(statement), {
    statement_ref: 'KW-2026-10-31', account: '0123456789', currency: 'KWD',
    period: { from: '2026-10-01', to: '2026-10-31' }, // FrToDt
    opening: 12500000, closing: 16248500, claimed_movement: 3748500,
    lines: 4, sum: 3750500 - 420125 + 420125 - 2000,
  })
  t.same(statement.opening.date, '2026-09-30')
  t.same(statement.entries[0], {
    amount: 3750500, mark: 'credit', reversal: false, date: '2026-10-05', value_date: '2026-10-05',
    reference: 'BATCH-77', description: 'Collected payments, batch 77', counterparty: null,
  }, 'three TxDtls are one line with the entry amount')
  t.same(statement.entries[1], {
    amount: -420125, mark: 'debit', reversal: false, date: '2026-10-12', value_date: '2026-10-13',
    reference: 'E2E-INV-5521', description: 'Invoice 5521',
    counterparty: { name: 'Gulf Supplies W.L.L. & Co', account: 'KW81CBKU0000000000001234560101' },
  })
  t.match(statement.entries[2], { amount: 420125, mark: 'debit', reversal: true, date: '2026-10-14', reference: 'E2E-INV-5521', description: 'Return: account closed' },
    'CRDT with RvslInd: the reversal of a debit, credited back')
  t.match(statement.entries[3], { amount: -2000, reference: 'FEE-10', description: 'Account fee October', counterparty: null })
  t.equal(checkBalances([statement]), null)
})

t.test('v02, JPY (exponent 0), CRLF: two statements of one account, no FrToDt', async (t) => {
  const statements = statementsOf(readCamt053(fixture('camt053', 'v02-jpy-two-statements-crlf.xml')))
  t.same(statements.map(figuresOf), [
    {
      statement_ref: 'JP-STMT-0001', account: '1234567', currency: 'JPY',
      period: { from: '2026-11-03', to: '2026-11-04' }, // day after OPBD 11-02 to CLBD 11-04
      opening: 500000, closing: 617600, claimed_movement: 117600, lines: 2, sum: 150000 - 32400,
    },
    {
      statement_ref: 'JP-STMT-0002', account: '1234567', currency: 'JPY',
      period: { from: '2026-11-05', to: '2026-11-06' }, // day after the first statement's closing
      opening: 617600, closing: 1610000, claimed_movement: 992400, lines: 2, sum: -7600 + 1000000,
    },
  ])
  t.match(statements[0].entries[0], { reference: 'JPREF-1', description: 'Order 884', counterparty: { name: 'Tanaka Shoji KK', account: '7654321' } }, 'EndToEndId NOTPROVIDED gives way to the bank reference')
  t.match(statements[0].entries[1], { amount: -32400, reference: 'JPREF-2', description: 'Rent November' })
  t.match(statements[1].entries[0], { amount: -7600, reference: null, description: 'Transfer fee' })
  t.match(statements[1].entries[1], { date: '2026-11-06', value_date: '2026-11-06', reference: 'E2E-JP-9', counterparty: { name: 'Sato Trading', account: null } }, 'BookgDt/DtTm')
  t.equal(checkBalances(statements), null)
})

t.test('genkgo/camt multi-statement test file (v02, EUR)', async (t) => {
  const statements = statementsOf(readCamt053(fixture('camt053', 'genkgo-v02-multi-statement.xml')))
  t.same(statements.map(figuresOf), [
    {
      statement_ref: '253EURNL26VAYB8060476890', account: 'NL26VAYB8060476890', currency: 'EUR',
      period: { from: '2007-10-18', to: '2007-10-18' }, // its FrToDt, as written
      opening: 1815, closing: 2700, claimed_movement: 885, lines: 1, sum: 885,
    },
    {
      statement_ref: '254EURNL26VAYB8060476890', account: 'NL26VAYB8060476890', currency: 'EUR',
      // No FrToDt, and it follows a statement of the same account closing 2014-12-31: docs/API.md, Bank statement formats starts it
      // the day after, later than its own closing date, so the route answers window_invalid for this file.
      period: { from: '2015-01-01', to: '2014-12-31' },
      opening: 2700, closing: 2000, claimed_movement: -700, lines: 1, sum: -700,
    },
  ])
  t.same(statements[0].entries[0], {
    amount: 885, mark: 'credit', reversal: false, date: '2014-12-31', value_date: '2015-01-02',
    reference: '000000001', description: 'Transaction Description 1', counterparty: null,
  }, 'a credit\'s counterparty is the debtor, which this file does not name')
  t.same(statements[1].entries[0].counterparty, { name: 'Company Name 2', account: 'NL56AGDH9619008421' })
})
