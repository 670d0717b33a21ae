/** Decimal text to minor units: exact for every digit count, never through a float, too many decimals refused. */
import fc from 'fast-check'
import t from 'tap'
import { minorUnitsOfDigits, toMinorUnits } from '../../src/statements/decimal.ts'

t.test('exact conversions by exponent', async (t) => {
  t.same(toMinorUnits('1234.56', 'EUR', '.'), { ok: true, minor: 123456 })
  t.same(toMinorUnits('0.1', 'EUR', '.'), { ok: true, minor: 10 })
  t.same(toMinorUnits('107,', 'EUR', ','), { ok: true, minor: 10700 })
  t.same(toMinorUnits('50,5', 'BHD', ','), { ok: true, minor: 50500 })
  t.same(toMinorUnits('1000000', 'JPY', '.'), { ok: true, minor: 1000000 })
  t.same(toMinorUnits('90071992547409.91', 'USD', '.'), { ok: true, minor: 9007199254740991 }, '2^53-1 exactly')
  t.same(toMinorUnits('0.29', 'EUR', '.'), { ok: true, minor: 29 }, 'a float would give 28.999…')
})

t.test('refusals', async (t) => {
  t.match(toMinorUnits('1.005', 'EUR', '.'), { ok: false, message: /3 decimals, EUR allows 2/ })
  t.match(toMinorUnits('100.0', 'JPY', '.'), { ok: false, message: /JPY allows 0/ })
  t.match(toMinorUnits('90071992547409.92', 'USD', '.'), { ok: false, message: /beyond/ })
  t.match(toMinorUnits('1,5', 'EUR', '.'), { ok: false })
  t.match(toMinorUnits('-1.00', 'EUR', '.'), { ok: false })
  t.match(toMinorUnits('1e3', 'EUR', '.'), { ok: false })
  t.match(toMinorUnits('1.00', 'XXX', '.'), { ok: false, message: /unknown currency/ })
  t.match(toMinorUnits('9'.repeat(1_000_000) + '.00', 'EUR', '.'), { ok: false, message: /beyond/ }, 'a million digits: refused, message kept short')
  t.equal((toMinorUnits('9'.repeat(1_000_000), 'EUR', '.') as { message: string }).message.length < 100, true)
  t.same(toMinorUnits('0000000000000000000012.34', 'EUR', '.'), { ok: true, minor: 1234 }, 'leading zeros are no digits of range')
  t.same(minorUnitsOfDigits('-000500'), { ok: true, minor: -500 })
  t.same(minorUnitsOfDigits('+12'), { ok: true, minor: 12 })
  t.match(minorUnitsOfDigits('12.5'), { ok: false })
})

t.test('every amount with up to the exponent\'s decimals reads back exactly', async () => {
  fc.assert(fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom(['EUR', 2], ['JPY', 0], ['KWD', 3]), (minor, [currency, exponent]) => {
    const digits = String(minor).padStart(exponent + 1, '0')
    const text = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`
    const read = toMinorUnits(text, currency as string, '.')
    return read.ok && read.minor === minor
  }))
})
