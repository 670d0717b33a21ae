/** The balance answer written out (src/ledger/balances.ts balanceJson): byte for byte JSON.stringify of its body. */
import fc from 'fast-check'
import t from 'tap'
import { balanceAt, balanceJson } from '../../src/ledger/balances.ts'
import { answerText } from '../../src/ledger/outcome.ts'
import { machine, ok, posting, run } from '../support/workspace-machine.ts'

t.test('balanceJson is JSON.stringify of the body, whatever the name holds', async (t) => {
  // Quotes, backslashes, control characters, non-ASCII, lone surrogates (JSON.stringify escapes those).
  const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.constantFrom('"', '\\\\', '\\u0000\\n\\t', '\\ud800', 'a\\udc00b', '</script>', '\\u2028'))
  fc.assert(fc.property(text, text, fc.constantFrom('EUR', 'USD', 'JPY'), fc.maxSafeInteger(), fc.boolean(), (account, name, currency, magnitude, negative) => {
    const body = { account, name, currency, balance: negative ? -magnitude : magnitude, at: '2026-11-23T21:18:02.123Z' }
    return balanceJson(body) === JSON.stringify(body)
  }), { numRuns: 5_000 })
})

t.test('the balance route\'s answer text is the body\'s JSON (names are [A-Za-z0-9_.-] segments: the property above covers escapes)', async (t) => {
  const names = ['assets:bank', 'income:sales.eu', 'expenses:fees-2026', 'liabilities:_card']
  const ctx = machine(names, Date.parse('2026-12-01T12:00:00.000Z'))
  ok(run(ctx, posting([[names[0], 100], [names[1], -60], [names[2], -39], [names[3], -1]], '2026-11-01T00:00:00Z')))
  for (const name of names) {
    for (const atMs of [Date.parse('2026-10-01T00:00:00Z'), Date.parse('2026-12-01T12:00:00.000Z'), Date.parse('2026-11-01T00:00:00.001Z')]) {
      const outcome = balanceAt(ctx.state, name, atMs, null)
      t.ok(outcome.ok && outcome.json !== undefined, 'written out')
      t.equal(outcome.ok && answerText(outcome), JSON.stringify(ok(outcome)), `${name} at ${atMs}`)
    }
  }
})
