/**
 * A reader's result as an outcome (src/statements/outcome.ts): its statements when they pass the file limits; a
 * file with none, a FileProblem thrown by the reader, or a field over its limits is statement_invalid naming the
 * format and where; any other error is a bug and is not turned into a refusal.
 */
import t from 'tap'
import { readGuarded } from '../../src/statements/outcome.ts'
import { FileProblem, type Statement, type StatementEntry } from '../../src/statements/types.ts'

function line(fields: Partial<StatementEntry> = {}): StatementEntry {
  return { amount: 100, mark: 'credit', reversal: false, date: '2026-03-10', value_date: null, reference: 'R1', description: 'Invoice', counterparty: null, ...fields }
}

function statement(entries: StatementEntry[], fields: Partial<Statement> = {}): Statement {
  return {
    format: 'mt940', statement_ref: 'S1', account: 'DE02120300000000202051', currency: 'EUR',
    opening: { amount: 0, date: '2026-03-01' }, closing: { amount: 100, date: '2026-03-31' }, period: { from: '2026-03-02', to: '2026-03-31' },
    entries, ...fields,
  }
}

t.test('statements that pass the limits are the outcome, as read', async (t) => {
  const statements = [statement([line(), line({ amount: -5, mark: 'debit', description: 'fee\twith tab' })])]
  t.same(readGuarded('MT940', () => statements), { ok: true, statements })
})

t.test('no statement at all is statement_invalid at /', async (t) => {
  t.same(readGuarded('BAI2', () => []), {
    ok: false, code: 'statement_invalid', message: 'The BAI2 file holds no statement.', details: [{ path: '/', message: 'no statement' }],
  })
})

t.test('a FileProblem from the reader is statement_invalid with the reader\'s place and words', async (t) => {
  const outcome = readGuarded('camt.053', () => { throw new FileProblem('line 12', 'the amount "1,00" is not a decimal') })
  t.same(outcome, {
    ok: false, code: 'statement_invalid', message: 'The camt.053 file cannot be read: the amount "1,00" is not a decimal',
    details: [{ path: 'line 12', message: 'the amount "1,00" is not a decimal' }],
  })
})

t.test('any other error passes through: a bug is not a refusal', async (t) => {
  t.throws(() => readGuarded('MT940', () => { throw new TypeError('x is undefined') }), TypeError)
})

t.test('the file limits run on what was read: a field too long or not free text names its path', async (t) => {
  const long = readGuarded('MT940', () => [statement([line(), line({ description: 'd'.repeat(1_001) })])])
  t.match(long, { ok: false, code: 'statement_invalid', details: [{ path: '/statements/0/lines/1/description' }] })
  t.match((long as { message: string }).message, /has 1001 characters, at most 1000/)
  t.match(readGuarded('MT940', () => [statement([line({ reference: 'a\u0007b' })])]), { ok: false, details: [{ path: '/statements/0/lines/0/reference' }] }, 'a control character')
  t.match(readGuarded('MT940', () => [statement([]), statement([line({ counterparty: { name: 'x\ud800', account: null } })])]), { ok: false, details: [{ path: '/statements/1/lines/0/counterparty/name' }] }, 'an unpaired surrogate')
  t.match(readGuarded('MT940', () => [statement([], { account: 'A'.repeat(65) })]), { ok: false, details: [{ path: '/statements/0/account' }] })
  t.equal(readGuarded('MT940', () => [statement([line({ description: 'd'.repeat(1_000) })])]).ok, true, 'at the bound: accepted')
})

t.test('at most 10,000 lines a file, across its statements', async (t) => {
  const many = (count: number) => Array.from({ length: count }, () => line())
  t.equal(readGuarded('BAI2', () => [statement(many(6_000)), statement(many(4_000))]).ok, true, '10,000 exactly')
  const over = readGuarded('BAI2', () => [statement(many(6_000)), statement(many(4_001))])
  t.match(over, { ok: false, code: 'statement_invalid', details: [{ path: '/statements/1/lines' }] })
  t.match((over as { message: string }).message, /10001 lines by statement 1, at most 10000/)
})
