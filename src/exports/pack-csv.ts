/**
 * @module The audit pack as CSV (docs/API.md, Exports): one row per statement line with the active match
 * covering it. The window's figures, matches and history are in the JSON and PDF forms; a CSV is one
 * table, which is what a spreadsheet opens.
 */

import { byteOrderMark, csvRows } from './csv-cells.js'
import type { PackHead, PackLine, PackWriter } from './pack.js'

export const packCsvColumns = ['line', 'date', 'amount', 'currency', 'reference', 'description', 'match', 'strategy', 'match_reason'] as const

export class CsvPackWriter implements PackWriter {
  #rows: (string | number | null)[][] = []
  #out = ''
  #currency: string | null = null

  begin(head: PackHead): void {
    this.#currency = head.accounts[0]?.currency ?? null
    this.#out = byteOrderMark + csvRows([], packCsvColumns)
  }

  section(): void {}

  line({ line, match }: PackLine): void {
    this.#rows.push([
      line.id as string, line.date as string, line.amount as number, this.#currency, line.reference as string | null, line.description as string | null,
      line.match as string | null, (match?.strategy ?? null) as string | null, (match?.reason ?? null) as string | null,
    ])
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
