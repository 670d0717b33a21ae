/**
 * @module The audit pack as a PDF report an auditor can file (pdfkit): the window's figures, who closed it
 * and when, the seal, then the statement lines with their matches, the matches and write-offs with their
 * reasons, and the history. pdfkit writes each page out when the next begins (bufferPages off), and this
 * writer hands on whatever it wrote after every actor page, so a window of 100,000 lines prints in bounded
 * memory. Tables are set in Courier with fixed columns: one text run per row, fast and aligned; a cell
 * longer than its column goes on in the same column on the rows below, so nothing is cut off. Under each
 * statement line, the entries matched to it. The standard fonts cover Latin-1 only: other characters
 * print as ? (the CSV and JSON forms keep every character).
 */

import PDFDocument from 'pdfkit'
import { currencyExponent } from '../ledger/currency.js'
import type { SealView } from '../ledger/window-json.js'
import { decimalAmountText } from './amount-text.js'
import type { PackHead, PackLine, PackWriter, SectionName } from './pack.js'

const margin = 40
const tableFontSize = 7
const rowHeight = 10
/** Courier's advance is 0.6 em: the characters a row of the page's width holds. */
const rowChars = Math.floor((595.28 - 2 * margin) / (tableFontSize * 0.6))

interface Column { readonly title: string; readonly width: number; readonly right?: boolean }

/** Ids are 20 characters (mat_, a 7-character tag, 9 digits), key ids 18, timestamps 24. */
const lineColumns: readonly Column[] = [
  { title: 'line', width: 7 }, { title: 'date', width: 10 }, { title: 'amount', width: 15, right: true }, { title: 'match', width: 20 },
  { title: 'strategy', width: 15 }, { title: 'reference', width: 18 }, { title: 'description', width: rowChars - 7 - 10 - 15 - 20 - 15 - 18 - 6 },
]
const matchColumns: readonly Column[] = [
  { title: 'match', width: 20 }, { title: 'strategy', width: 15 }, { title: 'cleared', width: 15, right: true }, { title: 'lines', width: 11 },
  { title: 'entries', width: 7, right: true }, { title: 'created', width: 24 }, { title: 'reversed', width: rowChars - 20 - 15 - 15 - 11 - 7 - 24 - 6 },
]
const historyColumns: readonly Column[] = [
  { title: 'at', width: 24 }, { title: 'event', width: 12 }, { title: 'state', width: 9 }, { title: 'residual', width: 15, right: true },
  { title: 'key', width: 18 }, { title: 'detail', width: rowChars - 24 - 12 - 9 - 15 - 18 - 5 },
]

/** What the standard fonts can print: Latin-1 without control characters. */
function printable(value: unknown): string {
  if (value === null || value === undefined) return ''
  return String(value).replace(/[^\x20-\x7e\xa0-\xff]/g, '?')
}

/** A cell's text in pieces of its column's width, padded: the first on the row, the rest on the rows below. */
function cellPieces(value: unknown, column: Column): string[] {
  const text = printable(value)
  const pieces: string[] = []
  for (let at = 0; at === 0 || at < text.length; at += column.width) pieces.push(text.slice(at, at + column.width))
  return pieces.map((piece) => (column.right === true ? piece.padStart(column.width) : piece.padEnd(column.width)))
}

function cell(value: unknown, column: Column): string {
  return cellPieces(value, column)[0]
}

/**
 * The statement's balances beside the books' at both ends, their differences, and how the window follows
 * the previous one (docs/API.md, Reconciliation windows, Balances and Continuity). A figure the statement
 * did not give prints as -.
 */
function balanceRows(window: Record<string, unknown>, amount: (minor: unknown) => string): [string, unknown][] {
  const follows = window.opening_matches_previous
  const opening = follows === true ? 'opening balance follows its closing' : follows === false ? 'opening balance does NOT follow its closing' : 'opening balance not known'
  return [
    ['Opening balance per bank', amount(window.opening_balance)], ['Opening balance per books', amount(window.book_opening_balance)],
    ['Opening difference (bank - books)', amount(window.opening_difference)],
    ['Closing balance per bank', amount(window.closing_balance)], ['Closing balance per books', amount(window.book_closing_balance)],
    ['Closing difference (bank - books)', amount(window.closing_difference)],
    ['Previous window', window.previous === null || window.previous === undefined ? 'none' : `${String(window.previous)}, gap ${String(window.gap_days)} days, ${opening}`],
  ]
}

export class PdfPackWriter implements PackWriter {
  /** pdfkit lays out a row in about 0.2 ms: 250 rows keep one actor turn near 50 ms. */
  readonly itemsPerPage = 250
  readonly #doc: PDFKit.PDFDocument
  #y = margin
  #columns: readonly Column[] = lineColumns
  /** Decimals of the window's currency; undefined when its accounts have none (amounts then print in minor units). */
  #exponent: number | undefined

  constructor() {
    this.#doc = new PDFDocument({ size: 'A4', margin, bufferPages: false, compress: true })
  }

  begin(head: PackHead): void {
    const doc = this.#doc
    const window = head.window
    doc.info.Title = `Reconciliation ${printable(window.label)}`
    doc.info.Subject = `Audit pack of ${String(window.id)}`
    doc.font('Helvetica-Bold').fontSize(14).text(`Reconciliation: ${printable(window.label)}`, margin, margin, { width: 595.28 - 2 * margin })
    doc.moveDown(0.5)
    const currency = head.accounts.find((account) => account.currency !== undefined)?.currency
    this.#exponent = currency === undefined ? undefined : currencyExponent(String(currency))
    const amount = (minor: unknown) => this.#amount(minor)
    const period = window.window as { from: string; to: string }
    const rows: [string, unknown][] = [
      ['Window', window.id], ['Accounts', head.accounts.map((account) => `${account.name} (${account.id})`).join(', ')],
      ...(currency === undefined ? [] : [['Currency', currency] as [string, unknown]]),
      ['Period', `${period.from} to ${period.to}, time zone ${head.time_zone}`], ['Statement', window.statement_ref ?? '-'],
      ['Claimed movement', amount(window.claimed_movement)], ['Derived movement', amount(window.derived_movement)], ['Cleared by matches', amount(head.matched)],
      ['Residual', amount(window.residual)], ['Tolerance', amount(window.tolerance)], ...balanceRows(window, amount), ['State', window.state], ['Opened at', window.opened_at],
      ['Closed at', window.closed_at ?? '-'], ['Closed by', head.closed_by === null ? '-' : `${head.closed_by.name ?? 'key without a name'} (${head.closed_by.id})`], ['Close reason', window.close_reason ?? '-'],
      ...(window.state === 'abandoned' ? [['Abandoned at', window.abandoned_at], ['Abandon reason', window.abandon_reason]] as [string, unknown][] : []),
      ['Post-close drift', amount(window.post_close_drift)], ['Post-close entries', window.post_close_entries ?? '-'],
      ['Exported at', head.exported_at],
    ]
    doc.fontSize(9)
    for (const [name, value] of rows) {
      doc.font('Helvetica-Bold').text(`${name}: `, { continued: true }).font('Helvetica').text(printable(value))
    }
    this.#seal(window.seal as SealView | null)
    const amounts = this.#exponent === undefined ? 'Amounts in minor units (the accounts have no currency).' : `Amounts in ${String(currency)}, ${this.#exponent} decimals.`
    doc.font('Helvetica').fontSize(7).text(`${amounts} The seal is recomputed from the JSON export as docs/API.md, "The seal", describes.`)
    this.#y = doc.y + rowHeight
  }

  /** The seal: its SHA-256, and its signature with the key that made it (docs/API.md, "The seal"). */
  #seal(seal: SealView | null): void {
    const doc = this.#doc
    doc.font('Helvetica-Bold').text('Seal (SHA-256): ', { continued: true }).font('Courier').text(seal?.sha256 ?? 'none (the window is not closed)')
    if (seal === null) return
    // Each on a line of its own: 88 base64 characters fit one Courier line, so no signature is wrapped.
    doc.font('Helvetica-Bold').text('Signature (Ed25519 over the 32 bytes of the SHA-256, base64):').font('Courier').text(seal.signature ?? 'none')
    doc.font('Helvetica-Bold').text('Workspace public key (raw 32 bytes, base64):').font('Courier').text(seal.public_key ?? 'none')
  }

  section(name: SectionName): void {
    const titles: Record<SectionName, string> = { lines: 'Statement lines and their matches', matches: 'Matches and write-offs (active and reversed, with reasons)', history: 'History' }
    this.#columns = name === 'lines' ? lineColumns : name === 'matches' ? matchColumns : historyColumns
    if (this.#y + 4 * rowHeight > this.#bottom()) this.#newPage()
    this.#doc.font('Helvetica-Bold').fontSize(11).text(titles[name], margin, this.#y + rowHeight / 2, { lineBreak: false })
    this.#y += 2 * rowHeight
    this.#header()
  }

  line({ line, match, entries }: PackLine): void {
    this.#row([line.id, line.date, this.#amount(line.amount), line.match, match?.strategy, line.reference, line.description])
    // The entries matched to the line: id, effective date (window's zone), amount on the window's accounts, description.
    for (const entry of entries) this.#text(`        ${entry.id} ${entry.effective_date} ${this.#amount(entry.amount)} ${printable(entry.description)}`.trimEnd())
  }

  match(item: Record<string, unknown>): void {
    const lines = item.statement_lines as string[]
    const entries = item.entries as string[]
    this.#row([item.id, item.strategy, this.#amount(item.matched_amount), lines.join(' '), entries.length, item.created_at, item.reversed_at ?? '-'])
    if (item.reason !== null) this.#text(`    reason: ${printable(item.reason)}`)
  }

  historyEvent(item: Record<string, unknown>): void {
    const { at, type, state, residual, key_id: keyId, ...detail } = item
    // A match event's matched_amount is what the match cleared (a difference, or a write-off), not a "matched" total.
    const details = Object.entries(detail).map(([name, value]) => name === 'matched_amount' ? `cleared=${this.#amount(value)}`
      : `${name}=${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}`).join(' ')
    this.#row([at, type, state, this.#amount(residual), keyId, details])
  }

  end(): void {
    this.#doc.end()
  }

  take(): Buffer {
    const chunks: Buffer[] = []
    for (let chunk = this.#doc.read() as Buffer | null; chunk !== null; chunk = this.#doc.read() as Buffer | null) chunks.push(chunk)
    return Buffer.concat(chunks)
  }

  close(): void {
    this.#doc.destroy()
  }

  /** A figure in the currency's decimals; absent figures (no drift yet) print as -. */
  #amount(minor: unknown): string {
    if (minor === null || minor === undefined) return '-'
    return typeof minor === 'number' ? decimalAmountText(minor, this.#exponent) : printable(minor)
  }

  #bottom(): number {
    return this.#doc.page.height - margin
  }

  #newPage(): void {
    this.#doc.addPage()
    this.#y = margin
  }

  #header(): void {
    this.#doc.font('Courier-Bold').fontSize(tableFontSize)
    this.#doc.text(this.#columns.map((column) => cell(column.title, column)).join(' '), margin, this.#y, { lineBreak: false })
    this.#y += rowHeight
    this.#doc.font('Courier')
  }

  /** A table row; its long cells go on in their columns on the rows below (never cut off). */
  #row(values: readonly unknown[]): void {
    const cells = this.#columns.map((column, index) => cellPieces(values[index], column))
    const rows = Math.max(...cells.map((pieces) => pieces.length))
    for (let row = 0; row < rows; row++) {
      this.#text(this.#columns.map((column, index) => cells[index][row] ?? ' '.repeat(column.width)).join(' ').trimEnd())
    }
  }

  /** One line of the table font; a text longer than a row goes on over as many rows as it needs. */
  #text(text: string): void {
    for (let at = 0; at === 0 || at < text.length; at += rowChars) {
      if (this.#y + rowHeight > this.#bottom()) {
        this.#newPage()
        this.#header()
      }
      // The table font is set by #header (after every section title and page break): setting it per row doubled the time.
      this.#doc.text(text.slice(at, at + rowChars), margin, this.#y, { lineBreak: false })
      this.#y += rowHeight
    }
  }
}
