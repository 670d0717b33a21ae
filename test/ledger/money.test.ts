/**
 * Money in minor units (src/ledger/money.ts): sums refuse to leave the safe integer range at any step (not only at
 * the end), and a line of 0 is refused naming every such line.
 */
import t from 'tap'
import { addSafe, sumSafe, zeroAmountRejection } from '../../src/ledger/money.ts'

const max = Number.MAX_SAFE_INTEGER

t.test('sumSafe: the exact sum while every partial sum is a safe integer, else null', async (t) => {
  t.equal(sumSafe([]), 0)
  t.equal(sumSafe([300, -300, 5]), 5)
  t.equal(sumSafe([max, 0]), max, 'the edge itself is safe')
  t.equal(sumSafe([-max, 0]), -max)
  t.equal(sumSafe([max, 1]), null, 'one past')
  t.equal(sumSafe([-max, -1]), null)
  t.equal(sumSafe([max, 1, -1]), null, 'a partial sum out of range refuses even if the total would come back')
  t.equal(sumSafe([max, -max, max]), max)
  t.equal(sumSafe([0.5, 0.5]), null, 'not integers')
  t.equal(sumSafe(new Set([1, 2, 3]).values()), 6, 'any iterable')
})

t.test('addSafe: the sum, or null past ±(2^53 − 1)', async (t) => {
  t.equal(addSafe(2, 3), 5)
  t.equal(addSafe(max - 1, 1), max)
  t.equal(addSafe(max, 1), null)
  t.equal(addSafe(-max, -1), null)
  t.equal(addSafe(max, -max), 0)
})

t.test('zeroAmountRejection: null without a zero; request_invalid naming each zero line and the first in the message', async (t) => {
  t.equal(zeroAmountRejection([{ amount: 1 }, { amount: -1 }], 'Entry'), null)
  t.equal(zeroAmountRejection([], 'Entry'), null)
  const rejection = zeroAmountRejection([{ amount: 5 }, { amount: 0 }, { amount: -5 }, { amount: -0 }], 'Statement line')
  t.same(rejection, {
    ok: false, code: 'request_invalid', message: 'Statement line amounts must be non-zero (line 1 is 0).',
    details: [{ path: '/lines/1/amount', message: 'must not be 0' }, { path: '/lines/3/amount', message: 'must not be 0' }],
  })
  t.equal(zeroAmountRejection([{ amount: 0 }], 'Entry')?.message, 'Entry amounts must be non-zero (line 0 is 0).')
})
