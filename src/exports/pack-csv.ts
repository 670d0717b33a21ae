/**
 * @module The audit pack as CSV (docs/API.md, Exports): one row per statement line with the active match
 * covering it and the entries of that match, one per line of the `entries` cell. Amounts in minor units
 * (`amount`) and in the currency's decimals (`amount_decimal`, exact text). The window's figures, matches
 * and history are in the JSON and PDF forms; a CSV is one table, which is what a spreadsheet opens.
 */

import { currencyExponent } from '../ledger/currency.js'
import type { LineEntry } from '../ledger/window-entries.js'
import { plainDecimalText } from './amount-text.js'
import { byteOrderMark, csvRows, DecimalCell, type CsvCell } from './csv-cells.js'
import type { PackHead, PackLine, PackWriter } from './pack.js'

export const packCsvColumns = ['line', 'date', 'amount', 'amount_decimal', 'currency', 'reference', 'description', 'match', 'strategy', 'match_reason', 'entries'] as const

export class CsvPackWriter implements PackWriter {
  #rows: CsvCell[][] = []
  #out = ''
  #currency: string | null = null
  /** Decimals of the currency; undefined when the accounts have none (amount_decimal then repeats the minor units). */
  #exponent: number | undefined

  begin(head: PackHead): void {
    this.#currency = head.accounts[0]?.currency ?? null
    this.#exponent = this.#currency === null ? undefined : currencyExponent(this.#currency)
    this.#out = byteOrderMark + csvRows([], packCsvColumns)
  }

  section(): void {}

  line({ line, match, entries }: PackLine): void {
    const amount = line.amount as number
    this.#rows.push([
      line.id as string, line.date as string, amount, new DecimalCell(plainDecimalText(amount, this.#exponent)), this.#currency,
      line.reference as string | null, line.description as string | null,
      line.match as string | null, (match?.strategy ?? null) as string | null, (match?.reason ?? null) as string | null,
      entries.length === 0 ? null : entries.map((entry) => this.#entryText(entry)).join('\n'),
    ])
  }

  /** `<id> <effective date> <amount on the window's accounts, decimals> <description>`. */
  #entryText(entry: LineEntry): string {
    const amount = entry.amount === null ? '-' : plainDecimalText(entry.amount, this.#exponent)
    return entry.description === null ? `${entry.id} ${entry.effective_date} ${amount}` : `${entry.id} ${entry.effective_date} ${amount} ${entry.description}`
  }

  match(): void {}
  historyEvent(): void {}
  end(): void {}

  take(): string {
    const out = this.#out + (this.#rows.length === 0 ? '' : csvRows(this.#rows, null))
    this.#out = ''
    this.#rows = []
    return out
  }

  close(): void {
    this.#rows = []
  }
}
