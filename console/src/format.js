// Amounts (integers in minor units) and timestamps as a person reads them.

const fallbackCurrency = 'USD'

/** The currency's exponent as Intl knows it (ISO 4217: USD 2, JPY 0, BHD 3). */
export function exponentOf(currency) {
  return new Intl.NumberFormat('en', { style: 'currency', currency: currency ?? fallbackCurrency }).resolvedOptions().maximumFractionDigits
}

/** Minor units → an exact decimal string (no float division: 2^53−1 cents stay exact). */
export function minorToDecimal(minor, exponent) {
  const negative = minor < 0
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0')
  const whole = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`
  return negative ? `-${whole}` : whole
}

const formatters = new Map()

export function formatAmount(minor, currency) {
  const code = currency ?? fallbackCurrency
  let formatter = formatters.get(code)
  if (formatter === undefined) {
    formatter = new Intl.NumberFormat(undefined, { style: 'currency', currency: code, currencySign: 'accounting' })
    formatters.set(code, formatter)
  }
  if (typeof minor !== 'number') return '—'
  // Intl formats a decimal string exactly.
  return formatter.format(minorToDecimal(minor, exponentOf(code)))
}

/** A timestamp in `zone`: the workspace's time zone, read from GET /v2/workspace (main.js); UTC until it is known. */
export function formatTimestamp(iso, zone = 'UTC') {
  if (!iso) return '—'
  // dateStyle/timeStyle cannot be combined with timeZoneName: the fields are named one by one.
  const fields = { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone: zone, timeZoneName: 'short' }
  return new Intl.DateTimeFormat(undefined, fields).format(new Date(iso))
}

export function formatDate(isoDate) {
  if (!isoDate) return '—'
  // A calendar date (YYYY-MM-DD) is already in the workspace timezone: format it as that date, in UTC.
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${isoDate}T00:00:00Z`))
}

/** An entry's amount for a window: the sum of its lines on the window's accounts (docs/API.md, Reconciliation windows). */
export function entryAmountFor(entry, accountNames) {
  return entry.lines.filter((line) => accountNames.includes(line.account)).reduce((sum, line) => sum + line.amount, 0)
}
