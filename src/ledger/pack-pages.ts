/**
 * @module The audit pack of a window (docs/API.md, Exports) as pages of plain items: its head (the window, its
 * time zone and accounts) and its sections (lines with the match covering each, matches active and reversed,
 * history). A page is a read: it names where the next one starts (a position, never a reference into state),
 * so whoever writes the pack (JSON, CSV, PDF) pulls page after page from wherever the workspace lives.
 */

import { reject } from '../errors.js'
import { formatTimestamp } from './calendar.js'
import { historyView } from './history-view.js'
import { matchView } from './matches.js'
import { accept, type Outcome } from './outcome.js'
import { sealedLine, sealVersion } from './seal.js'
import type { WorkspaceState } from './state.js'
import type { Visibility } from './visibility.js'
import { findWindow } from './window-effects.js'
import { closedByOf, lineEntries, type LineEntry } from './window-entries.js'
import { windowView } from './windows.js'
import type { ReconciliationWindow } from './windows-state.js'

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

export type PackItem =
  | { readonly section: SectionName }
  | { readonly line: PackLine }
  | { readonly match: Record<string, unknown> }
  | { readonly history: Record<string, unknown> }

/**
 * Where the next page starts. The section lengths are taken at the first page: a window still open may
 * grow meanwhile, and the pack then stays the one its head describes (a closed window cannot change).
 */
export interface PackPosition {
  readonly section: number
  readonly index: number
  readonly lengths: readonly [number, number, number]
}

export interface PackPage {
  /** On the first page only. */
  readonly head: PackHead | null
  readonly items: readonly PackItem[]
  /** Null: this was the last page. */
  readonly next: PackPosition | null
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

function packItem(state: WorkspaceState, window: ReconciliationWindow, name: SectionName, index: number, visibility: Visibility): PackItem {
  const matches = state.windows.matches
  if (name === 'lines') {
    const line = window.lines[index]
    const match = line.matchSeq === 0 ? null : (matchView(state, matches[line.matchSeq - 1], visibility) as Record<string, unknown>)
    return { line: { line: sealedLine(state, line), match, entries: lineEntries(state, window, line, visibility) } }
  }
  if (name === 'matches') return { match: matchView(state, matches[window.matchSeqs[index] - 1], visibility) as Record<string, unknown> }
  return { history: historyView(window.history[index]) as Record<string, unknown> }
}

/** One page of at most itemsMax items (sections' starts not counted) from `position` (null: the first page, with the head). */
export function packPage(state: WorkspaceState, windowId: string, visibility: Visibility, position: PackPosition | null, itemsMax: number, atMs: number): Outcome {
  const window = findWindow(state, windowId, visibility)
  if (window === undefined) return reject('not_found', 'No such reconciliation.')
  const items: PackItem[] = []
  const lengths = position?.lengths ?? [window.lines.length, window.matchSeqs.length, window.history.length] as const
  let section = position?.section ?? 0
  let index = position?.index ?? 0
  if (position === null) items.push({ section: sectionNames[0] })
  let budget = itemsMax
  while (budget > 0 && section < sectionNames.length) {
    if (index >= lengths[section]) {
      section++
      index = 0
      if (section < sectionNames.length) items.push({ section: sectionNames[section] })
      continue
    }
    items.push(packItem(state, window, sectionNames[section], index++, visibility))
    budget--
  }
  const head = position === null ? packHead(state, window, atMs) : null
  const page: PackPage = { head, items, next: section >= sectionNames.length ? null : { section, index, lengths } }
  return accept(200, page)
}
