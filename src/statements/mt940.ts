/** @module MT940 reader: SWIFT customer statement files, with or without the {1:…}{4: envelope, pages joined. */
import type { StatementFormatDescriptor } from './formats.ts'
import { readGuarded } from './outcome.ts'
import { ClosingDates, periodOfBalances } from './period.ts'
import { decodeText } from './text.ts'
import { FileProblem, type ReadResult, type Statement, type StatementEntry } from './types.ts'
import { amountOf, balanceOf, detailsOf, lineOf, type Mt940Balance, type Mt940Field } from './mt940-fields.ts'

interface Page {
  readonly reference: string
  readonly account: string
  readonly statementNumber: string
  readonly opening: Mt940Balance & { readonly final: boolean }
  readonly closing: Mt940Balance & { readonly final: boolean }
  readonly entries: StatementEntry[]
  readonly line: number
}

export function readMt940(bytes: Uint8Array): ReadResult {
  return readGuarded('MT940', () => joinPages(messagesOf(decodeText(bytes)).map(pageOf)))
}

/** MT940 as the rest of the service knows it (formats.ts): a SWIFT block, a `:20:` field, or a bank's header lines before its first `:20:`. */
export const mt940Format: StatementFormatDescriptor<'mt940'> = {
  name: 'mt940',
  title: 'MT940',
  mediaTypes: [{ mediaType: 'application/x-mt940', description: 'MT940 (SWIFT customer statement), with or without the {1:…}{4: envelope' }],
  signature: '{1: or :20:',
  sniff: (head) => head.startsWith('{1:') || /(^|\r?\n):20:/.test(head),
  read: readMt940,
}

/**
 * Fields grouped by message: a `:20:` starts one; a line `-` or `-}` ends it; envelope blocks and the
 * header lines some banks write before `:20:` (`ABNANL2A`, `940`) belong to no field; any other line
 * continues the field above it.
 */
function messagesOf(text: string): Mt940Field[][] {
  const messages: Mt940Field[][] = []
  let fields: Mt940Field[] | null = null
  let field: { tag: string, value: string, line: number } | null = null
  const lines = text.split(/\r?\n/)
  lines.forEach((raw, index) => {
    const content = raw.includes('{4:') ? raw.slice(raw.indexOf('{4:') + 3) : raw
    const tagged = /^:(\d\d[A-Z]?):(.*)$/.exec(content)
    if (tagged !== null) {
      if (tagged[1] === '20') messages.push(fields = [])
      if (fields === null) throw new FileProblem(`line ${index + 1}`, `:${tagged[1]}: before the :20: that starts a statement`)
      fields.push(field = { tag: tagged[1], value: tagged[2], line: index + 1 })
    } else if (/^-(\}|\s*$)/.test(content) || content.startsWith('{')) {
      fields = null
      field = null
    } else if (field !== null && content.trim() !== '') {
      field.value += '\n' + content
    }
  })
  return messages
}

function pageOf(fields: Mt940Field[]): Page {
  const first = fields[0]
  const only = (tags: string[]): Mt940Field => {
    const found = fields.filter((field) => tags.includes(field.tag))
    if (found.length !== 1) throw new FileProblem(`line ${first.line}`, `the statement starting here has ${found.length} :${tags.join(':/:')}: fields, not 1`)
    return found[0]
  }
  const account = only(['25']).value.trim()
  const statementNumber = only(['28C', '28']).value.trim().split('/')[0]
  const openingField = only(['60F', '60M'])
  const closingField = only(['62F', '62M'])
  const opening = { ...balanceOf(openingField), final: openingField.tag === '60F' }
  const closing = { ...balanceOf(closingField), final: closingField.tag === '62F' }
  if (closing.currency !== opening.currency) throw new FileProblem(`line ${closingField.line}`, `:${closingField.tag}: currency ${closing.currency} differs from the opening balance's ${opening.currency}`)
  const entries = fields.flatMap((field, index) => field.tag === '61' ? [entryOf(field, fields[index + 1], opening.currency)] : [])
  return { reference: first.value.trim(), account, statementNumber, opening, closing, entries, line: first.line }
}

function entryOf(field: Mt940Field, next: Mt940Field | undefined, currency: string): StatementEntry {
  const line = lineOf(field)
  const amount = amountOf(line.amountText, currency, field)
  const details = next?.tag === '86' ? detailsOf(next.value) : { description: null, endToEndId: null, counterparty: null }
  const credit = (line.mark === 'credit') !== line.reversal
  return {
    amount: credit ? amount : (amount === 0 ? 0 : -amount),
    mark: line.mark,
    reversal: line.reversal,
    date: line.date,
    value_date: line.valueDate,
    reference: details.endToEndId ?? line.customerReference ?? line.bankReference,
    description: details.description ?? line.supplementary,
    counterparty: details.counterparty,
  }
}

/**
 * Pages of one statement (same :25: and :28C: statement number) are joined: a page that ends in an
 * intermediate :62M: continues on the next, which opens with :60M: at the same balance. A statement
 * ends at a :62F:; a file that ends before one is incomplete.
 */
function joinPages(pages: Page[]): Statement[] {
  const statements: Statement[] = []
  const closingDates = new ClosingDates()
  let current = null as Page | null
  for (const page of pages) {
    if (current === null) {
      if (!page.opening.final) throw new FileProblem(`line ${page.line}`, 'an intermediate :60M: opening balance with no page before it ending in :62M:')
      current = page
    } else {
      continuePage(current, page)
      current = { ...current, closing: page.closing, entries: [...current.entries, ...page.entries] }
    }
    if (current.closing.final) {
      statements.push(statementOf(current, closingDates))
      current = null
    }
  }
  if (current !== null) throw new FileProblem(`line ${current.line}`, 'the statement starting here has no final closing balance :62F:')
  return statements
}

function continuePage(current: Page, page: Page): void {
  const where = `line ${page.line}`
  if (page.opening.final) throw new FileProblem(where, 'a new statement (:60F:) starts before the previous one reached its :62F:')
  if (page.account !== current.account || page.statementNumber !== current.statementNumber) {
    throw new FileProblem(where, `a page of account ${page.account} statement ${page.statementNumber} follows an unfinished statement ${current.statementNumber} of ${current.account}`)
  }
  if (page.opening.amount !== current.closing.amount || page.opening.currency !== current.closing.currency) {
    throw new FileProblem(where, ':60M: differs from the :62M: that closed the page before')
  }
}

function statementOf(page: Page, closingDates: ClosingDates): Statement {
  const period = periodOfBalances(page.opening.date, page.closing.date, closingDates.previous(page.account))
  closingDates.record(page.account, page.closing.date)
  return {
    format: 'mt940',
    statement_ref: `${page.reference}/${page.statementNumber}`,
    account: page.account,
    currency: page.opening.currency,
    opening: { amount: page.opening.amount, date: page.opening.date },
    closing: { amount: page.closing.amount, date: page.closing.date },
    period,
    entries: page.entries,
  }
}
