/** @module Exact conversion of decimal amount text to integer minor units, never through a float. */
import { currencyExponent } from '../ledger/currency.ts'
import { quoted } from './text.ts'

export type MinorUnits = { readonly ok: true, readonly minor: number } | { readonly ok: false, readonly message: string }

/**
 * `text` is digits with an optional fraction after `separator` ('.' in XML, ',' in MT940); the fraction may
 * not have more digits than the currency's exponent (docs/API.md, Accounts (currencies)). A trailing separator ("107,") is
 * MT940's way of writing a whole amount.
 */
export function toMinorUnits(text: string, currency: string, separator: '.' | ','): MinorUnits {
  const exponent = currencyExponent(currency)
  if (exponent === undefined) return { ok: false, message: `unknown currency ${quoted(currency)}` }
  const pattern = separator === '.' ? /^(\d+)(?:\.(\d*))?$/ : /^(\d+)(?:,(\d*))?$/
  const match = pattern.exec(text)
  if (match === null) return { ok: false, message: `${quoted(text)} is not a decimal amount` }
  const fraction = match[2] ?? ''
  if (fraction.length > exponent) {
    return { ok: false, message: `${quoted(text)} has ${fraction.length} decimals, ${currency} allows ${exponent}` }
  }
  return fromDigits(match[1] + fraction.padEnd(exponent, '0'), text)
}

/** Digits already in minor units (BAI2 writes amounts without a decimal point), optionally signed. */
export function minorUnitsOfDigits(text: string): MinorUnits {
  const match = /^([+-]?)(\d+)$/.exec(text)
  if (match === null) return { ok: false, message: `${quoted(text)} is not an amount in minor units` }
  const unsigned = fromDigits(match[2], text)
  if (!unsigned.ok || match[1] !== '-') return unsigned
  return { ok: true, minor: unsigned.minor === 0 ? 0 : -unsigned.minor }
}

function fromDigits(digits: string, text: string): MinorUnits {
  // 2^53-1 has 16 digits: a longer number is out of range without converting megabytes of digits.
  const significant = digits.replace(/^0+(?=\d)/, '')
  if (significant.length > 16) return { ok: false, message: `${quoted(text)} is beyond 2^53-1 minor units` }
  const value = BigInt(significant)
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) return { ok: false, message: `${quoted(text)} is beyond 2^53-1 minor units` }
  return { ok: true, minor: Number(value) }
}
