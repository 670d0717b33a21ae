/** @module Entries as JSON text straight from state, without a view object per entry: a batch answers thousands at once. */

import { formatTimestamp } from './calendar.js'
import type { Entry, WorkspaceState } from './state.js'

/**
 * Writes entries as entryView's JSON.stringify would (the same fields in the same order;
 * test/ledger/entry-json.test.ts compares them). Per writer it keeps each account's line prefix and the
 * last timestamps it formatted: a batch's entries share their accounts and mostly one posted_at.
 */
export class EntryJsonWriter {
  readonly #state: WorkspaceState
  /** Null for a writer of one entry (entries.ts's entryJson): its lines' accounts differ, a map would only cost. */
  readonly #linePrefixes: Map<number, string> | null
  #lastAtMs = Number.NaN
  #lastAt = ''

  constructor(state: WorkspaceState, keepsPrefixes = true) {
    this.#state = state
    this.#linePrefixes = keepsPrefixes ? new Map() : null
  }

  write(entry: Entry): string {
    // Parts joined once: `+=` would leave a rope of some fifty string pieces, which a single posting's
    // answer keeps alive (and the young-generation collector copies) until its record is durable.
    const parts: string[] = ['{"id":', JSON.stringify(entry.id), ',"lines":[']
    for (let index = 0; index < entry.lineCount; index++) {
      if (index > 0) parts.push(',')
      parts.push(this.#linePrefix(entry.lineAccountSeq(index)), String(entry.lineAmount(index)), '}')
    }
    parts.push('],"effective_at":"', this.#timestamp(entry.effectiveAtMs), '","posted_at":"', this.#timestamp(entry.postedAtMs), '"')
    // A field that is undefined (a record from before it existed) is left out, as JSON.stringify leaves it out.
    if (entry.description !== undefined) parts.push(',"description":', JSON.stringify(entry.description))
    if (entry.metadata !== undefined) parts.push(',"metadata":', JSON.stringify(entry.metadata))
    // Reversal links, each only when there is one (docs/API.md, Reversals); most workspaces have none.
    const state = this.#state
    if (state.reverses.size !== 0) {
      const reverses = state.reverses.get(entry.seq)
      if (reverses !== undefined) parts.push(',"reverses":', JSON.stringify(state.entries[reverses - 1].id))
      const reversedBy = state.reversedBy.get(entry.seq)
      if (reversedBy !== undefined) parts.push(',"reversed_by":', JSON.stringify(state.entries[reversedBy - 1].id))
    }
    parts.push('}')
    return parts.join('')
  }

  #linePrefix(accountSeq: number): string {
    let prefix = this.#linePrefixes?.get(accountSeq)
    if (prefix === undefined) {
      const account = this.#state.accounts[accountSeq - 1]
      prefix = `{"account":${JSON.stringify(account.name)},"account_id":${JSON.stringify(account.id)},"currency":${JSON.stringify(account.currency)},"amount":`
      this.#linePrefixes?.set(accountSeq, prefix)
    }
    return prefix
  }

  #timestamp(atMs: number): string {
    if (atMs !== this.#lastAtMs) {
      this.#lastAtMs = atMs
      this.#lastAt = formatTimestamp(atMs)
    }
    return this.#lastAt
  }
}
