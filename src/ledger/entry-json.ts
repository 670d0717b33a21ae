/** @module Entries as JSON text straight from state, without a view object per entry: a batch answers thousands at once. */

import { formatTimestamp } from './calendar.js'
import type { Account, Entry, WorkspaceState } from './state.js'

/** An account's line prefix, and the name and currency it was written with (either may change later). */
interface LinePrefix {
  readonly name: string
  readonly currency: string
  readonly text: string
}

/**
 * Each account's line prefix as last written, for the answers of single postings (three JSON.stringify calls a
 * line otherwise, on every POST /v2/entries). Weak: it goes with its account's state. A prefix is used only
 * while the account still has the name and currency it was written with; a rename writes it again.
 */
const linePrefixes = new WeakMap<Account, LinePrefix>()

/** `{"account":…,"account_id":…,"currency":…,"amount":` of the account as it is now. */
function linePrefixOf(account: Account): string {
  const known = linePrefixes.get(account)
  if (known !== undefined && known.name === account.name && known.currency === account.currency) return known.text
  const text = `{"account":${JSON.stringify(account.name)},"account_id":${JSON.stringify(account.id)},"currency":${JSON.stringify(account.currency)},"amount":`
  linePrefixes.set(account, { name: account.name, currency: account.currency, text })
  return text
}

/**
 * Writes entries as entryView's JSON.stringify would (the same fields in the same order;
 * test/ledger/entry-json.test.ts compares them). Per writer it keeps each account's line prefix and the
 * last timestamps it formatted: a batch's entries share their accounts and mostly one posted_at.
 */
export class EntryJsonWriter {
  readonly #state: WorkspaceState
  /** Null for a writer of one entry (entries.ts's entryJson): it takes the prefixes the module keeps per account. */
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
    const prefixes = this.#linePrefixes
    const account = this.#state.accounts[accountSeq - 1]
    if (prefixes === null) return linePrefixOf(account)
    let prefix = prefixes.get(accountSeq)
    if (prefix === undefined) {
      prefix = linePrefixOf(account)
      prefixes.set(accountSeq, prefix)
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
