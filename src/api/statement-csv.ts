/** @module Statement lines from a text/csv body (header date,amount,reference,description), parsed by csv-parse. */

import { parse } from 'csv-parse/sync'
import { reject, type Rejection } from '../errors.js'
import { parseDate } from '../ledger/calendar.js'

const columns = ['date', 'amount', 'reference', 'description'] as const
export const csvRowsMax = 10_000

interface CsvLine { amount: number; date: string; reference: string | null; description: string | null }

function rowError(index: number, field: string, message: string): Rejection {
  // Row numbers count the header as row 1, as a spreadsheet shows them.
  return reject('request_invalid', `CSV row ${index + 2}: ${field} ${message}.`, [{ path: `/lines/${index}/${field}`, message: `row ${index + 2}: ${message}` }])
}

function headerOf(names: string[]): string[] | Rejection {
  const lower = names.map((name) => name.trim().toLowerCase())
  for (const column of columns) {
    if (!lower.includes(column) && (column === 'date' || column === 'amount')) return reject('request_invalid', `CSV header lacks the column ${column}.`, [{ path: '/header', message: `missing ${column}` }])
  }
  const unknown = lower.find((name) => !(columns as readonly string[]).includes(name))
  if (unknown !== undefined) return reject('request_invalid', `CSV header has an unknown column ${unknown}.`, [{ path: '/header', message: `unknown column ${unknown}` }])
  if (new Set(lower).size !== lower.length) return reject('request_invalid', 'CSV header repeats a column.', [{ path: '/header', message: 'repeated column' }])
  return lower
}

function lineOf(record: Record<string, string>, index: number): CsvLine | Rejection {
  const amountText = (record.amount ?? '').trim()
  if (!/^[+-]?\d{1,16}$/.test(amountText) || !Number.isSafeInteger(Number(amountText))) return rowError(index, 'amount', 'must be an integer in minor units')
  const date = (record.date ?? '').trim()
  if (parseDate(date) === null) return rowError(index, 'date', 'must be a real YYYY-MM-DD date')
  const reference = record.reference === undefined || record.reference === '' ? null : record.reference
  const description = record.description === undefined || record.description === '' ? null : record.description
  if (reference !== null && reference.length > 500) return rowError(index, 'reference', 'must be at most 500 characters')
  if (description !== null && description.length > 1000) return rowError(index, 'description', 'must be at most 1000 characters')
  return { amount: Number(amountText), date, reference, description }
}

/** Parses the CSV into `{lines}`, the same shape the JSON form takes; nothing is stored on any bad row. */
export function parseStatementCsv(bytes: Buffer): { ok: true; value: { lines: CsvLine[] } } | Rejection {
  let rows: string[][]
  try {
    // One row past the limit (header + csvRowsMax + 1) is read, so an oversized upload is refused, never cut.
    rows = parse(bytes, { bom: true, relax_column_count: false, skip_empty_lines: true, max_record_size: 64 * 1024, to: csvRowsMax + 2 }) as string[][]
  } catch (error) {
    const line = (error as { lines?: number }).lines
    return reject('request_invalid', `The CSV cannot be parsed${line === undefined ? '' : ` at line ${line}`}: ${(error as Error).message}`, [{ path: '/lines', message: 'malformed CSV' }])
  }
  if (rows.length === 0) return reject('request_invalid', 'The CSV has no header.', [{ path: '/header', message: 'missing header' }])
  const header = headerOf(rows[0])
  if (!Array.isArray(header)) return header
  if (rows.length - 1 > csvRowsMax) return reject('request_invalid', `At most ${csvRowsMax} lines per upload.`, [{ path: '/lines', message: 'too many rows' }])
  const lines: CsvLine[] = []
  for (let index = 0; index < rows.length - 1; index++) {
    const record: Record<string, string> = {}
    header.forEach((name, column) => { record[name] = rows[index + 1][column] })
    const line = lineOf(record, index)
    if ('ok' in line) return line
    lines.push(line)
  }
  if (lines.length === 0) return reject('request_invalid', 'The CSV has no lines.', [{ path: '/lines', message: 'no rows' }])
  return { ok: true, value: { lines } }
}
