/** @module What an accepted command changed that a live subscriber can watch: windows and account balances (docs/API.md, WebSocket API and live updates). */

import { findAccount } from './accounts.js'
import { approvalWindow, approvedAction } from './approval-actions.js'
import { closedWindowsAt } from './closed-windows.js'
import { unknownCommand, type AccountUpdate, type WorkspaceCommand } from './commands.js'
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

const none: Changes = { windows: [], accountSeqs: [] }

/**
 * Read from the command, its answer and the state right after it, as events.ts reads events: a posting
 * changes its accounts, the live window of each that holds its effective time, every later live window of
 * each (their book balances) and the closed windows whose period holds it (their post-close drift); a window
 * command changes its window, and an open or abandon (or an import) the windows it is or was the previous of; a rename changes
 * the account and every window that names it. Every command type has its case: a new one without its
 * case does not compile (unknownCommand), so no command is silently reported as changing nothing.
 */
export function changesOf(state: WorkspaceState, command: WorkspaceCommand, outcome: Accepted): Changes {
  switch (command.type) {
    case 'entry.post':
    case 'entry.reverse': return postingChanges(state, [state.entries[state.entries.length - 1]])
    case 'entry.batch': {
      const posted = (outcome.body as BatchResult).posted
      return posted === 0 ? none : postingChanges(state, state.entries.slice(state.entries.length - posted))
    }
    case 'window.open': return windowChanges(state, (outcome.body as { id: string }).id, true)
    // A write-off's adjustment posted an entry too: its accounts and windows, besides the match's window.
    case 'match.create': return command.adjustment === undefined || outcome.status === 202 ? windowChanges(state, command.window, false) : adjustmentChanges(state, command.window)
    case 'window.lines.add':
    case 'match.batch':
    case 'match.auto':
    case 'match.reverse': return windowChanges(state, command.window, false)
    // An abandoned window is no longer the previous window of those after it (docs/API.md, "Continuity").
    case 'window.transition': return windowChanges(state, command.window, command.state === 'abandoned')
    case 'account.update': return accountChanges(state, command, (outcome.body as { id: string }).id)
    // The windows an import opens are new (no one watches them yet), but may be the previous window of later ones.
    case 'statements.import': return importChanges(state, outcome)
    // A new account has no watcher yet; its balance is 0 and no window names it.
    case 'account.create':
    case 'webhook.create':
    case 'webhook.delete':
    // Rules change no window and no balance until an auto-match applies them.
    case 'matching_rule.create':
    case 'matching_rule.update':
    case 'matching_rule.delete':
    // A line's assignee and note are in no window object or balance (its lines and history have their own routes).
    case 'window.line.annotate': return none
    // The closed windows it signed (their seal and history changed).
    // An approve changes what its action changed; any decision the approval's window (its history).
    case 'approval.decide': {
      const action = approvedAction(state, command, outcome)
      if (action !== null) return changesOf(state, action.command, action.outcome)
      const window = approvalWindow(state, command)
      return window === undefined ? none : { windows: [window], accountSeqs: [] }
    }
    case 'seal.key': return { windows: (outcome.body as { signed: string[] }).signed.map((id) => findWindow(state, id, null)!), accountSeqs: [] }
    default: return unknownCommand(command)
  }
}

/**
 * The account (its balance answer carries its name and currency) and, when it may have been renamed, every
 * window that names it, whatever its state: a window's object lists its accounts by name. A rename is
 * rare, so the windows are scanned rather than indexed.
 */
function accountChanges(state: WorkspaceState, command: AccountUpdate, id: string): Changes {
  const account = findAccount(state, id, null)
  if (account === undefined) return none
  const windows = command.name === undefined ? [] : state.windows.windows.filter((window) => window.accountSeqs.includes(account.seq))
  return { windows, accountSeqs: [account.seq] }
}

/** The window, and when it was opened or abandoned the windows whose previous window it now is or was. */
function windowChanges(state: WorkspaceState, id: string, withFollowers: boolean): Changes {
  const window = findWindow(state, id, null)
  if (window === undefined) return none
  return { windows: withFollowers ? [window, ...followersOf(state, window)].sort((a, b) => a.seq - b.seq) : [window], accountSeqs: [] }
}

function importChanges(state: WorkspaceState, outcome: Accepted): Changes {
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
