/**
 * @module GET /v2/entries/export: the entries as CSV, one row per entry line, in the order of GET
 * /v2/entries (effective_at, then id) and with its filters and visibility. Each page is the entry list's
 * own page of 1,000 entries, computed by the actor as a read when the client has taken the last one.
 */

import type { WorkspaceActor } from '../actor/workspace-actor.js'
import type { ChunkSource } from '../api/streamed-answer.js'
import { listEntries, type EntryListQuery } from '../ledger/entry-list.js'
import { accept } from '../ledger/outcome.js'
import type { Visibility } from '../ledger/visibility.js'
import { byteOrderMark, csvRows } from './csv-cells.js'

export const entriesCsvColumns = ['entry', 'effective_at', 'posted_at', 'description', 'account', 'account_id', 'amount', 'currency', 'metadata'] as const

interface EntryRow {
  readonly id: string
  readonly effective_at: string
  readonly posted_at: string
  readonly description: string | null
  readonly metadata: Readonly<Record<string, string>> | null
  readonly lines: readonly { readonly account: string; readonly account_id: string; readonly amount: number; readonly currency?: string }[]
}

interface EntriesPage {
  readonly data: readonly EntryRow[]
  readonly next_cursor: string | null
}

function pageCsv(page: EntriesPage, header: boolean): string {
  const rows: (string | number | null)[][] = []
  for (const entry of page.data) {
    const metadata = entry.metadata === null ? null : JSON.stringify(entry.metadata)
    for (const line of entry.lines) rows.push([entry.id, entry.effective_at, entry.posted_at, entry.description, line.account, line.account_id, line.amount, line.currency ?? null, metadata])
  }
  return (header ? byteOrderMark + csvRows([], entriesCsvColumns) : '') + (rows.length === 0 ? '' : csvRows(rows, null))
}

export class EntriesCsvSource implements ChunkSource {
  readonly #actor: WorkspaceActor
  readonly #query: EntryListQuery
  readonly #visibility: Visibility
  /** The first page, read with the request's checks; then null. */
  #first: EntriesPage | null
  #cursor: string | null
  #done = false

  constructor(actor: WorkspaceActor, query: EntryListQuery, visibility: Visibility, first: EntriesPage) {
    this.#actor = actor
    this.#query = query
    this.#visibility = visibility
    this.#first = first
    this.#cursor = first.next_cursor
  }

  next() {
    const first = this.#first
    if (first !== null) {
      this.#first = null
      this.#done = first.next_cursor === null
      return this.#actor.answer(accept(200, pageCsv(first, true)))
    }
    if (this.#done) return null
    return this.#actor.query((state) => {
      const outcome = listEntries(state, { ...this.#query, cursor: this.#cursor }, this.#visibility)
      if (!outcome.ok) return outcome
      const page = outcome.body as EntriesPage
      this.#cursor = page.next_cursor
      this.#done = page.next_cursor === null
      return accept(200, pageCsv(page, false))
    })
  }

  close(): void {
    this.#first = null
    this.#done = true
  }
}
