/**
 * @module The audit pack of a window (docs/API.md, Exports), format-neutral: its head (the window, its time zone
 * and accounts) and its sections (lines with the match covering each, matches active and reversed,
 * history), walked a page at a time by the actor, each page a read, each handed to a format's writer.
 */

import type { WorkspaceActor } from '../actor/workspace-actor.js'
import type { ChunkSource } from '../api/streamed-answer.js'
import { formatTimestamp } from '../ledger/calendar.js'
import { historyView } from '../ledger/history-view.js'
import { matchView } from '../ledger/matches.js'
import { accept } from '../ledger/outcome.js'
import { sealedLine, sealVersion } from '../ledger/seal.js'
import type { WorkspaceState } from '../ledger/state.js'
import { windowView } from '../ledger/windows.js'
import type { Visibility } from '../ledger/visibility.js'
import type { ReconciliationWindow } from '../ledger/windows-state.js'
import { closedByOf, lineEntries, type LineEntry } from '../ledger/window-entries.js'
import type { Chunk } from '../api/streamed-answer.js'

/** Items per page: one actor turn each; small enough that a page never holds up other requests long. */
export const packPageItemsMax = 2_000

export interface PackAccount {
  readonly id: string
  readonly name: string
  /** Present once accounts carry a currency (docs/API.md, Accounts (currencies)). */
  readonly currency?: string
}

export interface PackHead {
  readonly format: 'trueup.reconciliation-export'
  readonly version: 1
  readonly seal_version: number
  readonly exported_at: string
  /** The window object, as GET /v2/reconciliations/:id answers it. */
  readonly window: Record<string, unknown>
  readonly time_zone: string
  readonly accounts: readonly PackAccount[]
  /** Σ matched_amount of active matches: claimed − derived − residual. */
  readonly matched: number
  /** Who closed the window: the key's id and name (null unless closed). */
  readonly closed_by: { readonly id: string; readonly name: string | null } | null
}

export type SectionName = 'lines' | 'matches' | 'history'
export const sectionNames: readonly SectionName[] = ['lines', 'matches', 'history']

/** A line with the active match covering it (its strategy and reason), for the formats that print them. */
export interface PackLine {
  readonly line: Record<string, unknown>
  readonly match: Record<string, unknown> | null
  /** The entries of that match the key can read, each with its amount on the window's accounts. */
  readonly entries: readonly LineEntry[]
}

/** What a format does with the pack; `take` gives what was written since the last take. */
export interface PackWriter {
  /** Items per actor turn, when the format is slower than packPageItemsMax allows for. */
  readonly itemsPerPage?: number
  begin(head: PackHead): void
  section(name: SectionName): void
  line(item: PackLine): void
  match(item: Record<string, unknown>): void
  historyEvent(item: Record<string, unknown>): void
  end(): void
  take(): Chunk
  /** The client went away: drop what is held. */
  close(): void
}

function packHead(state: WorkspaceState, window: ReconciliationWindow, atMs: number): PackHead {
  const view = windowView(state, window) as Record<string, unknown>
  const accounts = window.accountSeqs.map((seq) => {
    const account = state.accounts[seq - 1] as { id: string; name: string; currency?: string }
    return account.currency === undefined ? { id: account.id, name: account.name } : { id: account.id, name: account.name, currency: account.currency }
  })
  const matched = (view.claimed_movement as number) - (view.derived_movement as number) - (view.residual as number)
  return {
    format: 'trueup.reconciliation-export', version: 1, seal_version: sealVersion, exported_at: formatTimestamp(atMs), window: view, time_zone: window.timeZone, accounts, matched,
    closed_by: closedByOf(window),
  }
}

/**
 * Walks the pack in pages. The section lengths are taken at the first page: a window still open may grow
 * meanwhile, and the pack then stays the one its head describes (a closed window cannot change).
 */
export class PackSource implements ChunkSource {
  readonly #actor: WorkspaceActor
  readonly #window: ReconciliationWindow
  readonly #writer: PackWriter
  readonly #atMs: number
  /** The exporting key's: a match lists only the entries it can read (matches.ts matchView). */
  readonly #visibility: Visibility
  #lengths: Record<SectionName, number> | null = null
  #section = 0
  #index = 0
  #done = false

  constructor(actor: WorkspaceActor, window: ReconciliationWindow, writer: PackWriter, atMs: number, visibility: Visibility) {
    this.#actor = actor
    this.#window = window
    this.#writer = writer
    this.#atMs = atMs
    this.#visibility = visibility
  }

  next() {
    if (this.#done) return null
    return this.#actor.query((state) => accept(200, this.#page(state)))
  }

  close(): void {
    this.#writer.close()
  }

  #page(state: WorkspaceState): Chunk {
    const window = this.#window
    const writer = this.#writer
    if (this.#lengths === null) {
      this.#lengths = { lines: window.lines.length, matches: window.matchSeqs.length, history: window.history.length }
      writer.begin(packHead(state, window, this.#atMs))
      writer.section(sectionNames[0])
    }
    let budget = writer.itemsPerPage ?? packPageItemsMax
    while (budget > 0 && this.#section < sectionNames.length) {
      const name = sectionNames[this.#section]
      if (this.#index >= this.#lengths[name]) {
        this.#section++
        this.#index = 0
        if (this.#section < sectionNames.length) writer.section(sectionNames[this.#section])
        continue
      }
      this.#item(state, name, this.#index++)
      budget--
    }
    if (this.#section >= sectionNames.length) {
      writer.end()
      this.#done = true
    }
    return writer.take()
  }

  #item(state: WorkspaceState, name: SectionName, index: number): void {
    const window = this.#window
    const matches = state.windows.matches
    if (name === 'lines') {
      const line = window.lines[index]
      const match = line.matchSeq === 0 ? null : (matchView(state, matches[line.matchSeq - 1], this.#visibility) as Record<string, unknown>)
      return this.#writer.line({ line: sealedLine(state, line), match, entries: lineEntries(state, window, line, this.#visibility) })
    }
    if (name === 'matches') return this.#writer.match(matchView(state, matches[window.matchSeqs[index] - 1], this.#visibility) as Record<string, unknown>)
    this.#writer.historyEvent(historyView(window.history[index]) as Record<string, unknown>)
  }
}
