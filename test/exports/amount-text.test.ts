/** The PDF's amounts: minor units as exact decimal text in the currency's decimals, grouped by thousands. */

import t from 'tap'
import fc from 'fast-check'
import { decimalAmountText } from '../../src/exports/amount-text.ts'

t.test('examples by exponent', async (t) => {
  t.equal(decimalAmountText(161010, 2), '1,610.10')
  t.equal(decimalAmountText(-750, 2), '-7.50')
  t.equal(decimalAmountText(0, 2), '0.00')
  t.equal(decimalAmountText(5, 2), '0.05')
  t.equal(decimalAmountText(-5, 3), '-0.005')
  t.equal(decimalAmountText(123456789, 0), '123,456,789')
  t.equal(decimalAmountText(1000, undefined), '1,000', 'no currency: minor units as they are')
  t.equal(decimalAmountText(Number.MAX_SAFE_INTEGER, 2), '90,071,992,547,409.91', 'exact at the largest safe integer')
})

t.test('the text reads back to the same minor units', async (t) => {
  fc.assert(fc.property(fc.maxSafeInteger(), fc.integer({ min: 0, max: 4 }), (minor, exponent) => {
    const text = decimalAmountText(minor, exponent)
    const [whole, fraction = ''] = text.replaceAll(',', '').split('.')
    return fraction.length === exponent && BigInt(`${whole.startsWith('-') ? '-' : ''}${whole.replace('-', '')}${fraction}`.replace(/^(-?)0+(?=\d)/, '$1')) === BigInt(minor)
  }), { numRuns: 2000 })
  t.pass()
})
