/** The console's amount formatting: minor units → major by the currency's exponent, exactly, through Intl. */

import path from 'node:path'
import t from 'tap'
import { repositoryRoot } from '../support/process.ts'

// A browser module (plain JS): imported by path so the typecheck does not need its declarations.
const formatPath = path.join(repositoryRoot, 'console', 'src', 'format.js')
const format = await import(formatPath)

t.test('exponents come from Intl (ISO 4217)', async (t) => {
  t.same(['USD', 'EUR', 'JPY', 'BHD'].map(format.exponentOf), [2, 2, 0, 3])
  t.equal(format.exponentOf(undefined), 2, 'no currency from the API: USD')
})

t.test('minor units → an exact decimal string, never through a float', async (t) => {
  t.equal(format.minorToDecimal(0, 2), '0.00')
  t.equal(format.minorToDecimal(5, 2), '0.05')
  t.equal(format.minorToDecimal(-35, 2), '-0.35')
  t.equal(format.minorToDecimal(1234, 3), '1.234')
  t.equal(format.minorToDecimal(-7, 0), '-7')
  t.equal(format.minorToDecimal(Number.MAX_SAFE_INTEGER, 2), '90071992547409.91', '2^53−1 cents to the last digit')
})

t.test('formatted with the currency, negatives in accounting style', async (t) => {
  const en = (minor: number, currency?: string) => new Intl.NumberFormat('en-US', { style: 'currency', currency: currency ?? 'USD', currencySign: 'accounting' }).format(format.minorToDecimal(minor, format.exponentOf(currency)))
  t.equal(en(11_165), '$111.65')
  t.equal(en(-35), '($0.35)')
  t.equal(en(123_456, 'JPY'), '¥123,456')
  t.equal(en(1_234, 'BHD'), 'BHD\u00a01.234', 'three decimals (the space is a no-break space)')
  t.equal(format.formatAmount(11_165, undefined), en(11_165), 'formatAmount: USD when the API gives no currency')
  t.equal(format.formatAmount(null, 'USD'), '—', 'no amount: a dash')
})

t.test("an entry's amount for a window: its lines on the window's accounts", async (t) => {
  const entry = { lines: [{ account: 'assets:bank', amount: 500 }, { account: 'assets:cash', amount: 100 }, { account: 'income:sales', amount: -600 }] }
  t.equal(format.entryAmountFor(entry, ['assets:bank', 'assets:cash']), 600)
  t.equal(format.entryAmountFor(entry, ['expenses:x']), 0)
})
