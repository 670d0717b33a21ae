/** @module What an accepted command changed that a live subscriber can watch: windows and account balances (CONTRACT.md 12). */

import type { WorkspaceCommand } from './commands.js'
import type { BatchResult } from './entry-batch.js'
import { liveWindowAt } from './live-windows.js'
import type { Accepted } from './outcome.js'
import type { Entry, WorkspaceState } from './state.js'
import { findWindow } from './window-effects.js'
import type { ReconciliationWindow } from './windows-state.js'

export interface Changes {
  /** Windows whose object changed (figures, lines, matches, state), each once, in window order. */
  readonly windows: readonly ReconciliationWindow[]
  /** Accounts whose balance or name changed, by seq, each once. */
  readonly accountSeqs: readonly number[]
}

const none: Changes = { windows: [], accountSeqs: [] }

/**
 * Read from the command, its answer and the state right after it, as events.ts reads events: a posting
 * changes its accounts and the live window of each that holds its effective time (a terminal window's
 * figures are frozen); a window command changes its window; a rename changes the account.
 */
export function changesOf(state: WorkspaceState, command: WorkspaceCommand, outcome: Accepted): Changes {
  switch (command.type) {
    case 'entry.post': return postingChanges(state, [state.entries[state.entries.length - 1]])
    case 'entry.batch': {
      const posted = (outcome.body as BatchResult).posted
      return posted === 0 ? none : postingChanges(state, state.entries.slice(state.entries.length - posted))
    }
    case 'window.open': return windowChanges(state, (outcome.body as { id: string }).id)
    case 'window.lines.add':
    case 'match.create':
    case 'match.reverse':
    case 'window.transition': return windowChanges(state, command.window)
    case 'account.update': {
      const seq = state.accounts.findIndex((account) => account.id === (outcome.body as { id: string }).id) + 1
      return seq === 0 ? none : { windows: [], accountSeqs: [seq] }
    }
    default: return none
  }
}

function windowChanges(state: WorkspaceState, id: string): Changes {
  const window = findWindow(state, id, null)
  return window === undefined ? none : { windows: [window], accountSeqs: [] }
}

function postingChanges(state: WorkspaceState, entries: readonly Entry[]): Changes {
  const accountSeqs = new Set<number>()
  const windows = new Set<ReconciliationWindow>()
  const hasLiveWindows = state.windows.liveWindowsByAccount.size > 0
  for (const entry of entries) {
    for (let index = 0; index < entry.lineCount; index++) {
      const accountSeq = entry.lineAccountSeq(index)
      accountSeqs.add(accountSeq)
      if (!hasLiveWindows) continue
      const window = liveWindowAt(state.windows, accountSeq, entry.effectiveAtMs)
      if (window !== undefined) windows.add(window)
    }
  }
  return { windows: [...windows].sort((a, b) => a.seq - b.seq), accountSeqs: [...accountSeqs] }
}
