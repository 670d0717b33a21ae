/** @module ISO 4217 currency codes and their exponents (digits of the minor unit), for exact minor-unit amounts. */

/**
 * The exponent ISO 4217 gives each code (list one, plus codes withdrawn since 2022 whose statements still
 * circulate: HRK, SLL, ZWL, CUC). Intl (CLDR) is the source of the codes, but its `maximumFractionDigits`
 * is the digits people write in practice, not ISO's minor unit: where they differ ISO wins, and
 * test/ledger/currency.test.ts names every such code. XDR and XSU have no minor unit in ISO 4217
 * ("N.A."): no bank account holds them, so they are left out.
 */
const exponentByCode: Readonly<Record<string, number>> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0, VND: 0,
  VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  CLF: 4, UYW: 4,
  ...Object.fromEntries([
    'AED', 'AFN', 'ALL', 'AMD', 'ANG', 'AOA', 'ARS', 'AUD', 'AWG', 'AZN', 'BAM', 'BBD', 'BDT', 'BGN', 'BMD', 'BND',
    'BOB', 'BOV', 'BRL', 'BSD', 'BTN', 'BWP', 'BYN', 'BZD', 'CAD', 'CDF', 'CHE', 'CHF', 'CHW', 'CNY', 'COP', 'COU',
    'CRC', 'CUC', 'CUP', 'CVE', 'CZK', 'DKK', 'DOP', 'DZD', 'EGP', 'ERN', 'ETB', 'EUR', 'FJD', 'FKP', 'GBP', 'GEL',
    'GHS', 'GIP', 'GMD', 'GTQ', 'GYD', 'HKD', 'HNL', 'HRK', 'HTG', 'HUF', 'IDR', 'ILS', 'INR', 'IRR', 'JMD', 'KES',
    'KGS', 'KHR', 'KPW', 'KYD', 'KZT', 'LAK', 'LBP', 'LKR', 'LRD', 'LSL', 'MAD', 'MDL', 'MGA', 'MKD', 'MMK', 'MNT',
    'MOP', 'MRU', 'MUR', 'MVR', 'MWK', 'MXN', 'MXV', 'MYR', 'MZN', 'NAD', 'NGN', 'NIO', 'NOK', 'NPR', 'NZD', 'PAB',
    'PEN', 'PGK', 'PHP', 'PKR', 'PLN', 'QAR', 'RON', 'RSD', 'RUB', 'SAR', 'SBD', 'SCR', 'SDG', 'SEK', 'SGD', 'SHP',
    'SLE', 'SLL', 'SOS', 'SRD', 'SSP', 'STN', 'SVC', 'SYP', 'SZL', 'THB', 'TJS', 'TMT', 'TOP', 'TRY', 'TTD', 'TWD',
    'TZS', 'UAH', 'USD', 'USN', 'UYU', 'UZS', 'VES', 'WST', 'XCD', 'XCG', 'YER', 'ZAR', 'ZMW', 'ZWG', 'ZWL',
  ].map((code) => [code, 2])),
}

/** The ISO 4217 exponent of `code`, or undefined for a code that is not a currency we hold. */
export function currencyExponent(code: string): number | undefined {
  return Object.hasOwn(exponentByCode, code) ? exponentByCode[code] : undefined
}

export function currencyCodes(): string[] {
  return Object.keys(exponentByCode).sort()
}
