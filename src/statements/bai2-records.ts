/** @module BAI2 records: physical lines split into fields, funds types and the 03 record's balances. */
import { minorUnitsOfDigits } from './decimal.ts'
import { dateOfYymmdd, quoted } from './text.ts'
import { FileProblem } from './types.ts'

export interface Bai2Record {
  readonly code: string
  /** Everything after `NN,`, the trailing `/` still on. */
  body: string
  readonly line: number
}

/** The record codes of BAI2: where a blocked line may hold the next record after a `/`. */
const recordStart = /(?<=\/)\s+(?=(?:01|02|03|16|49|88|98|99),)/

/**
 * The records of the text. Blank lines (and the padding some banks add to fixed-length records) are not
 * records. A line may hold several records, each ended by `/` and the next after blanks (a blocked file,
 * whose 01 record gives a block size). A line that starts with no record code continues the record above
 * when that one has not reached its `/` (a bank that wraps long 16 text at a fixed width instead of writing
 * an 88, as the specification would): its text joins with a space, and it counts as no record in the
 * 49/98/99 counts. After a record ended by `/`, such a line is refused.
 */
export function recordsOf(text: string): Bai2Record[] {
  const records: Bai2Record[] = []
  text.split(/\r?\n/).forEach((raw, index) => {
    const content = raw.trimEnd()
    if (content === '') return
    const previous = records[records.length - 1]
    if (!/^\d\d,/.test(content) && previous !== undefined && !previous.body.endsWith('/')) {
      previous.body = `${previous.body} ${content.trim()}`
      return
    }
    for (const part of content.split(recordStart)) {
      const match = /^(\d\d),(.*)$/.exec(part)
      if (match === null) throw new FileProblem(`line ${index + 1}`, `not a BAI2 record: ${quoted(part)}`)
      records.push({ code: match[1], body: match[2], line: index + 1 })
    }
  })
  return records
}

/** The fields of a record without free text: split on commas, the `/` that ends the record removed. */
export function fieldsOf(record: Bai2Record): string[] {
  return record.body.replace(/\/$/, '').split(',')
}

/** How many fields the funds type at `fields[index]` spends, itself included (BAI2 spec, "Funds Type"). */
export function fundsTypeWidth(fields: readonly string[], index: number, record: Bai2Record): number {
  const fundsType = fields[index] ?? ''
  if (['', '0', '1', '2', 'Z'].includes(fundsType)) return 1
  if (fundsType === 'V') return 3
  if (fundsType === 'S') return 4
  if (fundsType === 'D') {
    const count = countOf(fields[index + 1])
    // Each distribution is two fields (days, amount): a count the record cannot hold is no count.
    if (count === null || index + 2 + 2 * count > fields.length) throw new FileProblem(`line ${record.line}`, `funds type D needs a distribution count the record holds, not ${quoted(fields[index + 1])}`)
    return 2 + 2 * count
  }
  throw new FileProblem(`line ${record.line}`, `unknown funds type ${quoted(fundsType)}`)
}

/**
 * A count of records, groups, accounts or distributions: digits only, at most 15 of them (so always a safe
 * integer), else null. Number() would take `6.0`, `0x6`, `6e0` and read 20 nines as a float.
 */
export function countOf(text: string | undefined): number | null {
  return text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : null
}

export function amountField(text: string, record: Bai2Record, what: string): number {
  const minor = minorUnitsOfDigits(text)
  if (!minor.ok) throw new FileProblem(`line ${record.line}`, `${what}: ${minor.message}`)
  return minor.minor
}

export function dateField(text: string | undefined, record: Bai2Record, what: string): string {
  const date = dateOfYymmdd(text ?? '')
  if (date === null) throw new FileProblem(`line ${record.line}`, `${what} ${quoted(text ?? '')} is not a YYMMDD date`)
  return date
}

export interface AccountSummary {
  readonly account: string
  readonly currency: string | null
  /** Type code to amount, for status (0xx) and summary codes; an empty amount is absent. */
  readonly amounts: ReadonlyMap<string, number>
  /** The algebraic sum of every amount in the record, for the 49 record's control total. */
  readonly controlTotal: bigint
}

/** `03,account,currency,(type code,amount,item count,funds type…)*` with its 88 continuations' fields. */
export function accountSummaryOf(fields: readonly string[], record: Bai2Record): AccountSummary {
  const amounts = new Map<string, number>()
  let controlTotal = 0n
  let index = 2
  while (index < fields.length && !(index === fields.length - 1 && fields[index] === '')) {
    const [typeCode, amountText] = [fields[index], fields[index + 1] ?? '']
    // A summary left empty, type code and amount (BAI2 allows it: "03,account,USD,,,,,010,…"): nothing to read.
    if (typeCode === '' && amountText === '') {
      index += 3 + fundsTypeWidth(fields, index + 3, record)
      continue
    }
    if (!/^\d{3}$/.test(typeCode)) throw new FileProblem(`line ${record.line}`, `03 type code ${quoted(typeCode)} is not 3 digits`)
    if (amountText !== '') {
      const amount = amountField(amountText, record, `03 amount of type ${typeCode}`)
      amounts.set(typeCode, amount)
      controlTotal += BigInt(amount)
    }
    index += 3 + fundsTypeWidth(fields, index + 3, record)
  }
  return { account: fields[0], currency: fields[1] === '' ? null : fields[1], amounts, controlTotal }
}
