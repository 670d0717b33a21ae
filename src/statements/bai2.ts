/** @module BAI2 reader: cash management balance reporting files (01/02/03/16/88/49/98/99), control totals checked. */
import { accountSummaryOf, amountField, countOf, dateField, fieldsOf, fundsTypeWidth, recordsOf, type Bai2Record } from './bai2-records.ts'
import type { StatementFormatDescriptor } from './formats.ts'
import { readGuarded } from './outcome.ts'
import { ClosingDates } from './period.ts'
import { addDays, decodeText, quoted } from './text.ts'
import { FileProblem, type ReadResult, type Statement, type StatementEntry } from './types.ts'
import { currencyExponent } from '../ledger/currency.ts'

const openingLedgerCode = '010'
const closingLedgerCode = '015'
/** 890 is "contains non-monetary information": a note, not a movement of money. */
const nonMonetaryCode = '890'

interface Group {
  readonly index: number
  readonly asOfDate: string
  readonly currency: string | null
  readonly fileId: string
}

/** Walks records in order; every `take` counts one physical record for the 49/98/99 record counts. */
class Cursor {
  index = 0
  constructor(readonly records: readonly Bai2Record[]) {}

  peek(): Bai2Record | undefined {
    return this.records[this.index]
  }

  take(code: string): Bai2Record {
    const record = this.records[this.index]
    const last = this.records[this.records.length - 1]
    if (record === undefined) throw new FileProblem(`line ${last?.line ?? 1}`, `the file ends where a ${code} record is due: truncated?`)
    if (record.code !== code) throw new FileProblem(`line ${record.line}`, `a ${record.code} record where a ${code} record is due`)
    this.index += 1
    return record
  }

  continuations(): Bai2Record[] {
    const taken: Bai2Record[] = []
    while (this.peek()?.code === '88') taken.push(this.take('88'))
    return taken
  }
}

export function readBai2(bytes: Uint8Array): ReadResult {
  return readGuarded('BAI2', () => statementsOf(new Cursor(recordsOf(decodeText(bytes)))))
}

/** BAI2 as the rest of the service knows it (formats.ts): its file header record `01,` first. */
export const bai2Format: StatementFormatDescriptor<'bai2'> = {
  name: 'bai2',
  title: 'BAI2',
  mediaTypes: [{ mediaType: 'application/x-bai2', description: 'BAI2 (BAI Cash Management Balance Reporting, version 2)' }],
  signature: '01,',
  sniff: (head) => head.startsWith('01,'),
  read: readBai2,
}

function statementsOf(cursor: Cursor): Statement[] {
  const header = cursor.take('01')
  const headerFields = fieldsOf(header)
  if (headerFields[7] !== undefined && headerFields[7] !== '2') throw new FileProblem(`line ${header.line}`, `version ${quoted(headerFields[7])} is not BAI2 (2)`)
  const statements: Statement[] = []
  const closingDates = new ClosingDates()
  let groups = 0
  let total = 0n
  while (cursor.peek()?.code === '02') {
    const group = groupOf(cursor, headerFields[4] ?? '', groups + 1, statements, closingDates)
    total += group.controlTotal
    groups += 1
  }
  const trailer = cursor.take('99')
  checkTrailer(trailer, total, groups, cursor.index, 'file')
  const extra = cursor.peek()
  if (extra !== undefined) throw new FileProblem(`line ${extra.line}`, 'records after the 99 file trailer')
  return statements
}

function groupOf(cursor: Cursor, fileId: string, index: number, statements: Statement[], closingDates: ClosingDates): { controlTotal: bigint } {
  const start = cursor.index
  const header = cursor.take('02')
  cursor.continuations()
  const fields = fieldsOf(header)
  const group: Group = { index, asOfDate: dateField(fields[3], header, '02 as-of date'), currency: fields[5] || null, fileId }
  let accounts = 0
  let total = 0n
  while (cursor.peek()?.code === '03') {
    const account = accountOf(cursor, group, closingDates)
    statements.push(account.statement)
    total += account.controlTotal
    accounts += 1
  }
  checkTrailer(cursor.take('98'), total, accounts, cursor.index - start, 'group')
  return { controlTotal: total }
}

/** 98 and 99: control total, number of groups or accounts, number of records. */
function checkTrailer(trailer: Bai2Record, total: bigint, count: number, records: number, what: 'file' | 'group'): void {
  const [totalText, countText, recordsText] = fieldsOf(trailer)
  const where = `line ${trailer.line}`
  if (BigInt(amountField(totalText ?? '', trailer, `${trailer.code} control total`)) !== total) throw new FileProblem(where, `${what} control total ${quoted(totalText)} is not the sum of its amounts, ${total}`)
  if (countOf(countText) !== count) throw new FileProblem(where, `${what} trailer counts ${quoted(countText)} ${what === 'file' ? 'groups' : 'accounts'}, the ${what} has ${count}`)
  if (countOf(recordsText) !== records) throw new FileProblem(where, `${what} trailer counts ${quoted(recordsText)} records, the ${what} has ${records}`)
}

function accountOf(cursor: Cursor, group: Group, closingDates: ClosingDates): { statement: Statement, controlTotal: bigint } {
  const start = cursor.index
  const header = cursor.take('03')
  const fields = [...fieldsOf(header), ...cursor.continuations().flatMap(fieldsOf)]
  const summary = accountSummaryOf(fields, header)
  const currency = summary.currency ?? group.currency ?? 'USD'
  if (currencyExponent(currency) === undefined) throw new FileProblem(`line ${header.line}`, `unknown currency ${quoted(currency)}`)
  const opening = summary.amounts.get(openingLedgerCode)
  const closing = summary.amounts.get(closingLedgerCode)
  if (opening === undefined || closing === undefined) {
    throw new FileProblem(`line ${header.line}`, `account ${summary.account} lacks its opening (010) or closing (015) ledger balance`)
  }
  const entries: StatementEntry[] = []
  let controlTotal = summary.controlTotal
  while (cursor.peek()?.code === '16') {
    const detail = cursor.take('16')
    const entry = entryOf(detail, cursor.continuations(), group)
    controlTotal += BigInt(entry.amount)
    if (entry.counted) entries.push(entry.entry)
  }
  const trailer = cursor.take('49')
  const [totalText, recordsText] = fieldsOf(trailer)
  if (BigInt(amountField(totalText ?? '', trailer, '49 control total')) !== controlTotal) throw new FileProblem(`line ${trailer.line}`, `account control total ${quoted(totalText)} is not the sum of its amounts, ${controlTotal}`)
  if (countOf(recordsText) !== cursor.index - start) throw new FileProblem(`line ${trailer.line}`, `account trailer counts ${quoted(recordsText)} records, the account has ${cursor.index - start}`)
  const previous = closingDates.previous(summary.account)
  closingDates.record(summary.account, group.asOfDate)
  return {
    statement: {
      format: 'bai2',
      statement_ref: `${group.fileId}/${group.index}/${summary.account}`,
      account: summary.account,
      currency,
      opening: { amount: opening, date: group.asOfDate },
      closing: { amount: closing, date: group.asOfDate },
      period: { from: previous !== null && previous < group.asOfDate ? addDays(previous, 1) : group.asOfDate, to: group.asOfDate },
      entries,
    },
    controlTotal,
  }
}

/** `16,type code,amount,funds type…,bank reference,customer reference,text`; 88 records continue the text. */
function entryOf(record: Bai2Record, continuations: Bai2Record[], group: Group): { entry: StatementEntry, amount: number, counted: boolean } {
  const fields = record.body.split(',')
  const typeCode = fields[0]
  const amount = amountField(fields[1] ?? '', record, `16 amount`)
  const width = fundsTypeWidth(fields, 2, record)
  const code = Number(typeCode)
  if (!/^\d{3}$/.test(typeCode) || (typeCode !== nonMonetaryCode && !(code >= 100 && code <= 699))) {
    throw new FileProblem(`line ${record.line}`, `16 type code ${quoted(typeCode)} is neither a credit (100–399) nor a debit (400–699)`)
  }
  const text = [fields.slice(4 + width).join(','), ...continuations.map((continuation) => continuation.body)]
    .map((part) => part.replace(/\/$/, '').trim()).filter((part) => part !== '').join(' ')
  const credit = code < 400
  const valueDate = fields[2] === 'V' ? dateField(fields[3], record, '16 value date') : null
  // A record without text ends right after the customer reference: its `/` is no part of it.
  const plain = (field: string | undefined): string | null => field?.replace(/\/$/, '').trim() || null
  const reference = plain(fields[3 + width]) ?? plain(fields[2 + width])
  return {
    entry: {
      amount: credit ? amount : (amount === 0 ? 0 : -amount),
      mark: credit ? 'credit' : 'debit',
      reversal: false,
      date: group.asOfDate,
      value_date: valueDate,
      reference,
      description: text === '' ? null : text,
      counterparty: null,
    },
    amount,
    counted: typeCode !== nonMonetaryCode,
  }
}
