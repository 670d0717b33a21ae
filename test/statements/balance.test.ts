/**
 * src/statements/balance.ts on its own, over hand-made statements: null when opening + Σ lines = closing for
 * every one (no lines, zero, negative balances included); statement_unbalanced naming each that does not, by its
 * index in file order, in the details and as numbers; amount_out_of_range when a sum leaves ±(2^53−1), on the
 * way or at the end, whatever the order of the lines.
 */
import t from 'tap'
import { checkBalances } from '../../src/statements/balance.ts'
import type { Statement, StatementEntry } from '../../src/statements/types.ts'

const max = Number.MAX_SAFE_INTEGER

function statement(opening: number, amounts: readonly number[], closing: number): Statement {
  const entries: StatementEntry[] = amounts.map((amount) => ({
    amount, mark: amount < 0 ? 'debit' : 'credit', reversal: false, date: '2026-11-02', value_date: null, reference: null, description: null, counterparty: null,
  }))
  return {
    format: 'camt053', statement_ref: 'st', account: 'DE89', currency: 'EUR', opening: { amount: opening, date: '2026-10-31' }, closing: { amount: closing, date: '2026-11-30' },
    period: { from: '2026-11-01', to: '2026-11-30' }, entries,
  }
}

t.test('balanced statements: null', async (t) => {
  t.equal(checkBalances([]), null, 'no statement')
  t.equal(checkBalances([statement(0, [], 0)]), null, 'no lines, the balance unchanged')
  t.equal(checkBalances([statement(1000, [250, -100, 0], 1150)]), null)
  t.equal(checkBalances([statement(-500, [-20], -520), statement(7, [], 7)]), null, 'negative balances, several statements')
  t.equal(checkBalances([statement(max - 10, [10], max)]), null, 'up to the largest safe integer')
  t.equal(checkBalances([statement(-max, [max, -5], -5)]), null, 'from the most negative balance by the largest line')
})

t.test('unbalanced statements: each named, by index, in details and as numbers', async (t) => {
  const result = checkBalances([statement(100, [50], 150), statement(100, [50, 25], 170), statement(0, [], 0), statement(-10, [-5], -14)])
  t.equal(result?.code, 'statement_unbalanced')
  t.same(result?.unbalanced, [{ statement: 1, opening: 100, sum: 75, closing: 170 }, { statement: 3, opening: -10, sum: -5, closing: -14 }])
  t.same(result?.details, [
    { path: '/statements/1', message: 'statement 1: opening 100 + sum of lines 75 = 175, not the closing 170' },
    { path: '/statements/3', message: 'statement 3: opening -10 + sum of lines -5 = -15, not the closing -14' },
  ])
  t.same(checkBalances([statement(0, [], 1)])?.unbalanced, [{ statement: 0, opening: 0, sum: 0, closing: 1 }], 'off by one minor unit, no lines')
  t.same(checkBalances([statement(0, [1], 0)])?.unbalanced, [{ statement: 0, opening: 0, sum: 1, closing: 0 }])
})

t.test('a sum that leaves the safe range: amount_out_of_range, naming the statement', async (t) => {
  const lines = checkBalances([statement(0, [1], 1), statement(0, [max, 1, -1], max)])
  t.equal(lines?.code, 'amount_out_of_range', 'the running sum of the lines leaves the range, though it would come back')
  t.same(lines?.details, [{ path: '/statements/1', message: 'the sum of the lines leaves ±(2^53−1)' }])
  t.equal(lines !== null && 'unbalanced' in lines, false, 'no unbalanced list: nothing was compared')
  t.match(checkBalances([statement(max, [1], max)]), { code: 'amount_out_of_range', details: [{ path: '/statements/0' }] }, 'opening + sum leaves it')
  t.match(checkBalances([statement(-max, [-1], -max)]), { code: 'amount_out_of_range' }, 'below −(2^53−1) too')
  t.match(checkBalances([statement(0, [1], 2), statement(0, [-max, -1], 0)]), { code: 'amount_out_of_range', details: [{ path: '/statements/1' }] }, 'out of range wins over an unbalanced statement before it')
})
