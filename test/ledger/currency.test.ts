/** ISO 4217 exponents against Intl: every code Intl knows has ours, equal to Intl's except where ISO differs (named here). */
import t from 'tap'
import { currencyCodes, currencyExponent } from '../../src/ledger/currency.ts'

/**
 * Intl (CLDR) gives the digits people write, ISO 4217 the minor unit banks book in. These are the codes
 * where they differ; ISO's exponent is the one statement files use, so ours is ISO's.
 */
const isoWhereIntlDiffers: Readonly<Record<string, number>> = {
  AFN: 2, ALL: 2, COP: 2, HUF: 2, IDR: 2, IQD: 3, IRR: 2, KPW: 2, LAK: 2, LBP: 2, MGA: 2, MMK: 2, PKR: 2, SLL: 2,
  SOS: 2, SYP: 2, YER: 2,
}
/** Special drawing rights and the Sucre: ISO 4217 gives them no minor unit ("N.A."), so no account holds them. */
const noMinorUnit = ['XDR', 'XSU']

function intlExponent(code: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? -1
}

t.test('every currency Intl supports has the ISO 4217 exponent', async (t) => {
  const codes = Intl.supportedValuesOf('currency')
  t.ok(codes.length > 100, 'Intl lists the currencies')
  for (const code of codes) {
    if (noMinorUnit.includes(code)) {
      t.equal(currencyExponent(code), undefined, `${code} has no minor unit`)
    } else if (code in isoWhereIntlDiffers) {
      t.equal(currencyExponent(code), isoWhereIntlDiffers[code], `${code}: ISO ${isoWhereIntlDiffers[code]}`)
      t.not(intlExponent(code), isoWhereIntlDiffers[code], `${code}: Intl still differs (else drop it from the list)`)
    } else {
      t.equal(currencyExponent(code), intlExponent(code), `${code}: ISO = Intl`)
    }
  }
})

t.test('the exponents the contract names, and codes outside Intl', async (t) => {
  t.equal(currencyExponent('EUR'), 2)
  t.equal(currencyExponent('JPY'), 0)
  t.equal(currencyExponent('BHD'), 3)
  t.equal(currencyExponent('KWD'), 3)
  t.equal(currencyExponent('CLF'), 4, 'ISO fund code Intl does not list')
  t.equal(currencyExponent('eur'), undefined, 'codes are upper case')
  t.equal(currencyExponent('toString'), undefined, 'no prototype keys')
  t.ok(currencyCodes().every((code) => /^[A-Z]{3}$/.test(code)))
})
