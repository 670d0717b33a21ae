/**
 * @module Taking back matches made a moment ago within one step of the actor: a batch whose item fails
 * (all or nothing) and a dry run (every check and figure of the real call, nothing kept). The real
 * createMatch runs, so the answers are the real ones; then the window returns to its mark.
 */

import assert from 'node:assert/strict'
import type { WorkspaceState } from './state.js'
import type { ReconciliationWindow } from './windows-state.js'

export interface WindowMark {
  readonly matchesCount: number
  readonly matchSeqsCount: number
  readonly historyCount: number
  /** The window's plain fields (figures, counts, state): whatever a match changes among them comes back. */
  readonly scalars: Readonly<Record<string, unknown>>
}

export function markWindow(state: WorkspaceState, window: ReconciliationWindow): WindowMark {
  const scalars: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(window)) if (value === null || typeof value !== 'object') scalars[name] = value
  return { matchesCount: state.windows.matches.length, matchSeqsCount: window.matchSeqs.length, historyCount: window.history.length, scalars }
}

/**
 * Undoes the matches created on this window since the mark. A match only takes free lines and entries,
 * so freeing them restores what was there; the lists created since are cut back to their length.
 */
export function undoToMark(state: WorkspaceState, window: ReconciliationWindow, mark: WindowMark): void {
  const matches = state.windows.matches
  for (let index = matches.length - 1; index >= mark.matchesCount; index--) {
    const match = matches[index]
    assert.equal(match.windowSeq, window.seq, 'only matches of the marked window are undone')
    for (const number of match.lineNumbers) {
      assert.equal(window.lines[number - 1].matchSeq, match.seq)
      window.lines[number - 1].matchSeq = 0
    }
    for (const entrySeq of match.entrySeqs) assert(window.matchedEntries.delete(entrySeq))
  }
  matches.length = mark.matchesCount
  window.matchSeqs.length = mark.matchSeqsCount
  window.history.length = mark.historyCount
  Object.assign(window, mark.scalars)
}
