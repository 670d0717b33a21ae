/** @module Statement lines from a text/csv body (header date,amount,reference,description), parsed by csv-parse. */

import { isUtf8 } from 'node:buffer'
import { parse } from 'csv-parse/sync'
import { reject, type Rejection } from '../errors.js'
import { parseDate } from '../ledger/calendar.js'
import { hasControlCharacter, textProblem } from './schemas/text.js'

const columns = ['date', 'amount', 'reference', 'description'] as const
export const csvRowsMax = 10_000

interface CsvLine { amount: number; date: string; reference: string | null; description: string | null }

/**
 * A record of the file with its row number as a spreadsheet shows it: every row counts, the
 * header's and blank ones included, and a quoted value that spans lines is one row.
 */
interface CsvRow { readonly row: number; readonly fields: readonly string[] }

/** `index` is the line's place in `lines` (the JSON form's index); `row` the file's row number. */
function rowError(index: number, row: number, field: string, message: string): Rejection {
  return reject('request_invalid', `CSV row ${row}: ${field} ${message}.`, [{ path: `/lines/${index}/${field}`, message: `row ${row}: ${message}` }])
}

function headerOf(names: readonly string[]): string[] | Rejection {
  const lower = names.map((name) => name.trim().toLowerCase())
  for (const column of columns) {
    if (!lower.includes(column) && (column === 'date' || column === 'amount')) return reject('request_invalid', `CSV header lacks the column ${column}.`, [{ path: '/header', message: `missing ${column}` }])
  }
  const unknown = lower.find((name) => !(columns as readonly string[]).includes(name))
  if (unknown !== undefined) return reject('request_invalid', `CSV header has an unknown column ${unknown}.`, [{ path: '/header', message: `unknown column ${unknown}` }])
  if (new Set(lower).size !== lower.length) return reject('request_invalid', 'CSV header repeats a column.', [{ path: '/header', message: 'repeated column' }])
  return lower
}

/**
 * A row must have as many values as the header (RFC 4180). Too few: the path names the first
 * column the row lacks. Too many: no column is named for the extra value, so the path names the
 * header's last column, the one the overflow follows (often an unquoted comma in a text value).
 */
function columnCountError(index: number, { row, fields }: CsvRow, header: readonly string[]): Rejection | null {
  if (fields.length === header.length) return null
  const counts = `the row has ${fields.length} ${fields.length === 1 ? 'value' : 'values'}, the header ${header.length} columns`
  if (fields.length < header.length) return rowError(index, row, header[fields.length], `is missing (${counts})`)
  return rowError(index, row, header[header.length - 1], `is followed by a value without a column (${counts}; quote a value that holds a comma)`)
}

function lineOf(record: Readonly<Record<string, string>>, index: number, row: number): CsvLine | Rejection {
  const amountText = (record.amount ?? '').trim()
  if (!/^[+-]?\d{1,16}$/.test(amountText) || !Number.isSafeInteger(Number(amountText))) return rowError(index, row, 'amount', 'must be an integer in minor units')
  const date = (record.date ?? '').trim()
  if (parseDate(date) === null) return rowError(index, row, 'date', 'must be a real YYYY-MM-DD date')
  const reference = record.reference === undefined || record.reference === '' ? null : record.reference
  const description = record.description === undefined || record.description === '' ? null : record.description
  if (reference !== null && reference.length > 500) return rowError(index, row, 'reference', 'must be at most 500 characters')
  if (reference !== null && hasControlCharacter(reference)) return rowError(index, row, 'reference', textProblem)
  if (description !== null && description.length > 1000) return rowError(index, row, 'description', 'must be at most 1000 characters')
  if (description !== null && hasControlCharacter(description)) return rowError(index, row, 'description', textProblem)
  return { amount: Number(amountText), date, reference, description }
}

const recordBytesMax = 64 * 1024

/**
 * The records with their row numbers; with `raw`, each value is the Buffer of its bytes as the file
 * has them (to find bytes that are not UTF-8, which decoding would turn into U+FFFD).
 */
function parseRows(bytes: Buffer, raw: boolean): { rows: number[]; records: string[][] } {
  const rows: number[] = []
  // Blank lines are skipped but counted (empty_lines), so row numbers stay those of the file.
  // One record past the limit (header + csvRowsMax + 1) is read, so an oversized upload is refused, never cut.
  // A byte-order mark is cut by hand in raw mode: csv-parse's bom option would switch back to strings.
  const input = raw && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes
  const records = parse(input, {
    bom: !raw, encoding: raw ? null : 'utf8', relax_column_count: true, skip_empty_lines: true, max_record_size: recordBytesMax, to: csvRowsMax + 2,
    on_record: (fields, context) => {
      rows.push(context.records + context.empty_lines)
      return fields
    },
  })
  return { rows, records }
}

function readRows(bytes: Buffer): CsvRow[] | Rejection {
  try {
    const { rows, records } = parseRows(bytes, false)
    return records.map((fields, index) => ({ row: rows[index], fields }))
  } catch (error) {
    const line = (error as { lines?: number }).lines
    return reject('request_invalid', `The CSV cannot be parsed${line === undefined ? '' : ` at line ${line}`}: ${(error as Error).message}`, [{ path: '/lines', message: 'malformed CSV' }])
  }
}

/**
 * The first value whose bytes are not UTF-8, as a row error. Only a body that failed isUtf8 comes
 * here, so valid uploads never pay for the second parse.
 */
function utf8Error(bytes: Buffer): Rejection {
  const problem = 'is not valid UTF-8'
  try {
    const { rows, records } = parseRows(bytes, true)
    for (let record = 0; record < records.length; record++) {
      const column = (records[record] as unknown as Buffer[]).findIndex((value) => !isUtf8(value))
      if (column < 0) continue
      if (record === 0) return reject('request_invalid', `CSV row ${rows[0]}: the header ${problem}.`, [{ path: '/header', message: `row ${rows[0]}: ${problem}` }])
      // A value past the header's last column is reported under that column, as columnCountError does.
      const header = records[0]
      return rowError(record - 1, rows[record], header[Math.min(column, header.length - 1)].toString().trim().toLowerCase(), problem)
    }
  } catch {
    // Unparseable as well: the answer below says what matters first.
  }
  return reject('request_invalid', `The CSV ${problem}.`, [{ path: '/lines', message: problem }])
}

/** Parses the CSV into `{lines}`, the same shape the JSON form takes; nothing is stored on any bad row. */
export function parseStatementCsv(bytes: Buffer): { ok: true; value: { lines: CsvLine[] } } | Rejection {
  if (!isUtf8(bytes)) return utf8Error(bytes)
  const rows = readRows(bytes)
  if (!Array.isArray(rows)) return rows
  if (rows.length === 0) return reject('request_invalid', 'The CSV has no header.', [{ path: '/header', message: 'missing header' }])
  const header = headerOf(rows[0].fields)
  if (!Array.isArray(header)) return header
  if (rows.length - 1 > csvRowsMax) return reject('request_invalid', `At most ${csvRowsMax} lines per upload.`, [{ path: '/lines', message: 'too many rows' }])
  const lines: CsvLine[] = []
  for (let index = 0; index < rows.length - 1; index++) {
    const row = rows[index + 1]
    const countError = columnCountError(index, row, header)
    if (countError !== null) return countError
    const record: Record<string, string> = {}
    header.forEach((name, column) => { record[name] = row.fields[column] })
    const line = lineOf(record, index, row.row)
    if ('ok' in line) return line
    lines.push(line)
  }
  if (lines.length === 0) return reject('request_invalid', 'The CSV has no lines.', [{ path: '/lines', message: 'no rows' }])
  return { ok: true, value: { lines } }
}
