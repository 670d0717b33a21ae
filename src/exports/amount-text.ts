/** @module Minor units as the decimal text an auditor reads (`161010` EUR → `1,610.10`), exact: digits, never a float. */

/**
 * `minor` minor units of a currency with `exponent` decimals, grouped by thousands with commas, negative with
 * a leading minus. Without an exponent (an account with no currency) the minor units are printed as they are.
 */
export function decimalAmountText(minor: number, exponent: number | undefined): string {
  if (!Number.isSafeInteger(minor)) return String(minor)
  const digits = String(Math.abs(minor))
  const scale = exponent ?? 0
  const padded = digits.padStart(scale + 1, '0')
  const whole = padded.slice(0, padded.length - scale).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  const fraction = scale === 0 ? '' : `.${padded.slice(padded.length - scale)}`
  return `${minor < 0 ? '-' : ''}${whole}${fraction}`
}

/** The same without the thousands commas (`-1610.10`): what a spreadsheet reads as a number in a CSV cell. */
export function plainDecimalText(minor: number, exponent: number | undefined): string {
  return decimalAmountText(minor, exponent).replaceAll(',', '')
}
