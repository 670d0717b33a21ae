/** @module Statement lines from a text/csv body (header date,amount,reference,description), parsed by csv-parse. */

import { parse } from 'csv-parse/sync'
import { reject, type Rejection } from '../errors.js'
import { parseDate } from '../ledger/calendar.js'

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
  if (description !== null && description.length > 1000) return rowError(index, row, 'description', 'must be at most 1000 characters')
  return { amount: Number(amountText), date, reference, description }
}

function readRows(bytes: Buffer): CsvRow[] | Rejection {
  try {
    // Blank lines are skipped but counted (empty_lines), so row numbers stay those of the file.
    // One record past the limit (header + csvRowsMax + 1) is read, so an oversized upload is refused, never cut.
    const rowNumbers: number[] = []
    const records = parse(bytes, {
      bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: 64 * 1024, to: csvRowsMax + 2,
      on_record: (fields, context) => {
        rowNumbers.push(context.records + context.empty_lines)
        return fields
      },
    })
    return records.map((fields, index) => ({ row: rowNumbers[index], fields }))
  } catch (error) {
    const line = (error as { lines?: number }).lines
    return reject('request_invalid', `The CSV cannot be parsed${line === undefined ? '' : ` at line ${line}`}: ${(error as Error).message}`, [{ path: '/lines', message: 'malformed CSV' }])
  }
}

/** Parses the CSV into `{lines}`, the same shape the JSON form takes; nothing is stored on any bad row. */
export function parseStatementCsv(bytes: Buffer): { ok: true; value: { lines: CsvLine[] } } | Rejection {
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
