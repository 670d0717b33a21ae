/**
 * @module What an accepted command changed that a live subscriber can watch: windows and account balances (docs/API.md,
 * WebSocket API and live updates). Read from the command, its answer and the state right after it, as events.ts reads
 * events: a posting changes its accounts, the live window of each that holds its effective time, every later live
 * window of each (their book balances) and the closed windows whose period holds it (their post-close drift); a window
 * command changes its window, and an open or abandon (or an import) the windows it is or was the previous of; a rename
 * changes the account and every window that names it. One function per kind of command; the command table
 * (command-table.ts) names each type's, so no command type is reported as changing nothing by omission.
 */

import { findAccount } from './accounts.js'
import { closedWindowsAt } from './closed-windows.js'
import type { AccountUpdate, MatchCreate } from './commands.js'
import type { BatchResult } from './entry-batch.js'
import { liveWindowsEndingAfter } from './live-windows.js'
import type { Accepted } from './outcome.js'
import type { Entry, WorkspaceState } from './state.js'
import { followersOf } from './window-continuity.js'
import { findWindow } from './window-effects.js'
import type { ReconciliationWindow } from './windows-state.js'

export interface Changes {
  /** Windows whose object changed (figures, lines, matches, state, an account's name), each once, in window order. */
  readonly windows: readonly ReconciliationWindow[]
  /** Accounts whose balance or name changed, by seq, each once. */
  readonly accountSeqs: readonly number[]
}

/**
 * Nothing a subscriber watches: a new account (no watcher yet, its balance 0, no window names it), subscriptions,
 * rules (they change no window or balance until an auto-match applies them), a line's assignee and note (in no
 * window object or balance: its lines and history have their own routes).
 */
export const noChanges: Changes = { windows: [], accountSeqs: [] }
const none = noChanges

/** entry.post, entry.reverse: the entry it made. */
export function postingChangesOf(state: WorkspaceState): Changes {
  return postingChanges(state, [state.entries[state.entries.length - 1]])
}

/** entry.batch: the entries it posted. */
export function batchChanges(state: WorkspaceState, outcome: Accepted): Changes {
  const posted = (outcome.body as BatchResult).posted
  return posted === 0 ? none : postingChanges(state, state.entries.slice(state.entries.length - posted))
}

/** match.create: its window; a write-off's adjustment posted an entry too (its accounts and windows). */
export function matchCreateChanges(state: WorkspaceState, command: MatchCreate, outcome: Accepted): Changes {
  return command.adjustment === undefined || outcome.status === 202 ? windowChanges(state, command.window, false) : adjustmentChanges(state, command.window)
}

/** seal.key: the closed windows it signed (their seal and history changed). */
export function sealChanges(state: WorkspaceState, outcome: Accepted): Changes {
  return { windows: (outcome.body as { signed: string[] }).signed.map((id) => findWindow(state, id, null)!), accountSeqs: [] }
}

/**
 * The account (its balance answer carries its name and currency) and, when it may have been renamed, every
 * window that names it, whatever its state: a window's object lists its accounts by name. A rename is
 * rare, so the windows are scanned rather than indexed.
 */
export function accountChanges(state: WorkspaceState, command: AccountUpdate, id: string): Changes {
  const account = findAccount(state, id, null)
  if (account === undefined) return none
  const windows = command.name === undefined ? [] : state.windows.windows.filter((window) => window.accountSeqs.includes(account.seq))
  return { windows, accountSeqs: [account.seq] }
}

/** The window, and when it was opened or abandoned the windows whose previous window it now is or was. */
export function windowChanges(state: WorkspaceState, id: string, withFollowers: boolean): Changes {
  const window = findWindow(state, id, null)
  if (window === undefined) return none
  return { windows: withFollowers ? [window, ...followersOf(state, window)].sort((a, b) => a.seq - b.seq) : [window], accountSeqs: [] }
}

export function importChanges(state: WorkspaceState, outcome: Accepted): Changes {
  if (outcome.replayed === true) return none
  const opened = (outcome.body as { data: readonly { id: string }[] }).data
  const windows = new Set<ReconciliationWindow>()
  for (const { id } of opened) {
    const window = findWindow(state, id, null)
    if (window !== undefined) for (const follower of followersOf(state, window)) windows.add(follower)
  }
  return { windows: [...windows].sort((a, b) => a.seq - b.seq), accountSeqs: [] }
}

function adjustmentChanges(state: WorkspaceState, id: string): Changes {
  const posting = postingChanges(state, [state.entries[state.entries.length - 1]])
  const window = windowChanges(state, id, false).windows
  return { windows: [...new Set([...posting.windows, ...window])], accountSeqs: posting.accountSeqs }
}

function postingChanges(state: WorkspaceState, entries: readonly Entry[]): Changes {
  const accountSeqs = new Set<number>()
  const windows = new Set<ReconciliationWindow>()
  const hasLiveWindows = state.windows.liveWindowsByAccount.size > 0
  const hasClosedWindows = state.windows.closedWindowsByAccount.size > 0
  for (const entry of entries) {
    for (let index = 0; index < entry.lineCount; index++) {
      const accountSeq = entry.lineAccountSeq(index)
      accountSeqs.add(accountSeq)
      if (!hasLiveWindows) continue
      // The window holding it (its movement) and every later live one (their book balances).
      for (const window of liveWindowsEndingAfter(state.windows, accountSeq, entry.effectiveAtMs)) windows.add(window)
    }
    // A back-dated posting into a closed period moves its post-close figures (most leave at the first comparison).
    if (!hasClosedWindows) continue
    for (const window of closedWindowsAt(state.windows, entry.accountSeqs(), entry.effectiveAtMs)) windows.add(window)
  }
  return { windows: [...windows].sort((a, b) => a.seq - b.seq), accountSeqs: [...accountSeqs] }
}
