/**
 * @module GET /v2/entries/export: the entries as CSV, one row per entry line, in the order of GET
 * /v2/entries (effective_at, then id) and with its filters and visibility. Each page is the entry list's
 * own page of 1,000 entries, an `entry.list` read of the workspace's shard pulled when the client has taken the last one.
 */

import type { ChunkSource } from '../api/streamed-answer.js'
import type { EntryListQuery } from '../ledger/entry-list.js'
import type { Visibility } from '../ledger/visibility.js'
import type { Reply, Shard } from '../shard/operation.js'
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

export interface EntriesPage {
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

/** Which entries, for whom, from which shard. */
export interface EntriesRequest {
  readonly shard: Shard
  readonly workspace: string
  readonly query: EntryListQuery
  readonly visibility: Visibility
}

/** A page of the list from `cursor`: its reply (an error answers the request: an unknown account) and, when 200, the page. */
export async function entriesPage(request: EntriesRequest, cursor: string | null): Promise<{ readonly reply: Reply; readonly page: EntriesPage | null }> {
  const { shard, workspace, query, visibility } = request
  const reply = await shard.send({ op: 'query', workspace, visibility, query: { name: 'entry.list', params: { ...query, cursor } } })
  return { reply, page: reply.status === 200 ? JSON.parse(reply.body) as EntriesPage : null }
}

export class EntriesCsvSource implements ChunkSource {
  readonly #request: EntriesRequest
  /** The first page, read with the request's checks; then null. */
  #first: EntriesPage | null
  #cursor: string | null
  #done = false

  constructor(request: EntriesRequest, first: EntriesPage) {
    this.#request = request
    this.#first = first
    this.#cursor = first.next_cursor
  }

  async next(): Promise<string | null> {
    const first = this.#first
    if (first !== null) {
      this.#first = null
      this.#done = first.next_cursor === null
      return pageCsv(first, true)
    }
    if (this.#done) return null
    const { reply, page } = await entriesPage(this.#request, this.#cursor)
    if (page === null) throw new Error(`an export page was refused: ${reply.status} ${reply.body}`)
    this.#cursor = page.next_cursor
    this.#done = page.next_cursor === null
    return pageCsv(page, false)
  }

  close(): void {
    this.#first = null
    this.#done = true
  }
}
