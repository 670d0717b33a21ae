/**
 * @module CSV as spreadsheets read it safely: RFC 4180 through csv-stringify (quotes, CRLF), UTF-8 with a
 * byte order mark (without it Excel reads UTF-8 as a legacy code page), and the CSV-injection guard: a
 * text cell starting with =, +, -, @, tab or CR is prefixed with ' so no spreadsheet runs it as a
 * formula (OWASP, "CSV Injection"). Numbers stay numbers: a negative amount is a number, not text.
 */

import { stringify } from 'csv-stringify/sync'

const formulaStart = /^[=+\-@\t\r]/

export function guardText(value: string): string {
  return formulaStart.test(value) ? `'${value}` : value
}

export const byteOrderMark = '\uFEFF'

/**
 * An exact decimal written as text (`-7.50`, amount-text.ts): a number to a spreadsheet, so it is not
 * guarded (a leading minus sign is its sign, not a formula); only digits, one point and a sign get here.
 */
export class DecimalCell {
  readonly text: string
  constructor(text: string) {
    if (!/^-?\d+(\.\d+)?$/.test(text)) throw new Error(`not a decimal: ${text}`)
    this.text = text
  }
}

export type CsvCell = string | number | DecimalCell | null

/** The rows as CSV text (a header row first when given), every text cell guarded. */
export function csvRows(rows: readonly (readonly CsvCell[])[], header: readonly string[] | null): string {
  const records = header === null ? rows : [header, ...rows]
  return stringify(records as CsvCell[][], {
    record_delimiter: 'windows',
    cast: { string: (value) => guardText(value), number: (value) => String(value), object: (value) => (value as unknown as DecimalCell).text },
  })
}
