/** @module The events an accepted command emits (webhooks): derived from the command, its answer and the state after it. */

import { formatTimestamp } from './calendar.js'
import { approvedAction } from './approval-actions.js'
import { closedWindowsAt } from './closed-windows.js'
import { unknownCommand, type WebhookEventType, type WorkspaceCommand } from './commands.js'
import type { LedgerEvent } from './ledger-event.js'
import { liveWindowAt } from './live-windows.js'
import { matchEvent } from './matches.js'
import type { Accepted } from './outcome.js'
import { entryView } from './entries.js'
import type { BatchResult } from './entry-batch.js'
import type { Entry, WorkspaceState } from './state.js'
import { findWindow } from './window-effects.js'
import type { ReconciliationWindow, WindowStateName } from './windows-state.js'
import { windowView } from './windows.js'

/**
 * The events of an accepted command, in the order they happened: the command's own event, then each
 * window it turned balanced, then each closed window whose period it posted into (drifted). Flips are read from the window history the command just wrote, so there
 * is one source of truth for "this command balanced that window".
 */
export function eventsOf(state: WorkspaceState, command: WorkspaceCommand, outcome: Accepted): LedgerEvent[] {
  const timestamp = formatTimestamp(command.at_ms)
  const event = (type: WebhookEventType, data: unknown, accountNames: readonly string[]): LedgerEvent => ({ type, timestamp, data, accountNames })
  const body = outcome.body as { id: string; reconciliation?: string; state?: string }
  switch (command.type) {
    case 'entry.post':
    case 'entry.reverse':
      return entryEvents(state, state.entries[state.entries.length - 1], outcome.body, timestamp)
    case 'entry.batch': {
      const events: LedgerEvent[] = []
      for (const item of (outcome.body as BatchResult).items) if (!('ok' in item)) events.push(...entryEvents(state, item, entryView(state, item), timestamp))
      return events
    }
    case 'window.open':
      return [event('reconciliation.opened', outcome.body, accountNamesOf(state, windowOf(state, body.id)))]
    case 'statements.import': {
      // Only the windows this command opened: a statement imported before answers its window, and was announced then.
      const views = (outcome.body as { data: { id: string }[] }).data
      const firstNewSeq = state.windows.windows.length - views.length + 1
      return views.map((view) => ({ view, window: windowOf(state, view.id) }))
        .filter(({ window }) => window.seq >= firstNewSeq && window.openedAtMs === command.at_ms && window.openedBy === command.key_id)
        .map(({ view, window }) => event('reconciliation.opened', view, accountNamesOf(state, window)))
    }
    // A request held for approval (202) changed nothing yet.
    case 'window.transition':
      if (outcome.status === 202) return []
      return [event(body.state === 'closed' ? 'reconciliation.closed' : 'reconciliation.abandoned', outcome.body, accountNamesOf(state, windowOf(state, body.id)))]
    case 'match.create':
      if (outcome.status === 202) return []
      if (command.adjustment !== undefined) return adjustmentEvents(state, outcome, timestamp)
      return matchEvents(state, command.type, outcome, timestamp)
    case 'match.reverse':
      return matchEvents(state, command.type, outcome, timestamp)
    // createMatchBatch and autoMatch gathered the events of their matches one by one (match-batch.ts, auto-match.ts).
    case 'match.batch':
    case 'match.auto':
      return outcome.events === undefined ? [] : [...outcome.events]
    // Lines move no figure the residual rests on (no flip); accounts and subscriptions have no webhook event (docs/API.md, Webhooks).
    case 'window.lines.add':
    // A line's assignee and note are bookkeeping of the team's work, no webhook event (docs/API.md, Exceptions).
    case 'window.line.annotate':
    case 'account.create':
    case 'account.update':
    case 'webhook.create':
    case 'webhook.delete':
    case 'matching_rule.create':
    case 'matching_rule.update':
    case 'matching_rule.delete':
    // A seal signed on upgrade changes no figure of its window and has no webhook event (docs/API.md, "The seal").
    case 'seal.key':
      return []
    // An approve emits the events of the action it ran; a rejection or a failure none.
    case 'approval.decide': {
      const action = approvedAction(state, command, outcome)
      return action === null ? [] : eventsOf(state, action.command, action.outcome)
    }
    default:
      return unknownCommand(command)
  }
}

/** An entry's own event, then each window it turned balanced (and that is still balanced by it). */
function entryEvents(state: WorkspaceState, entry: Entry, body: unknown, timestamp: string): LedgerEvent[] {
  const accountSeqs = entry.accountSeqs()
  const posted: LedgerEvent = { type: 'entry.posted', timestamp, data: body, accountNames: accountSeqs.map((seq) => state.accounts[seq - 1].name) }
  const balanced = windowsBalancedBy(state, accountSeqs, entry.effectiveAtMs, (detail) => detail.cause === 'entry_posted' && detail.entry === entry.id)
  // A back-dated entry into a closed period: the window (its post_close_drift and post_close_entries as they now stand).
  const drifted = closedWindowsAt(state.windows, accountSeqs, entry.effectiveAtMs)
  return [
    posted,
    ...balanced.map((window): LedgerEvent => ({ type: 'reconciliation.balanced', timestamp, data: windowView(state, window), accountNames: accountNamesOf(state, window) })),
    ...drifted.map((window): LedgerEvent => ({ type: 'reconciliation.drifted', timestamp, data: windowView(state, window), accountNames: accountNamesOf(state, window) })),
  ]
}

function windowOf(state: WorkspaceState, id: string): ReconciliationWindow {
  const window = findWindow(state, id, null)
  if (window === undefined) throw new Error(`an accepted command names window ${id}, which does not exist`)
  return window
}

function accountNamesOf(state: WorkspaceState, window: ReconciliationWindow): string[] {
  return window.accountSeqs.map((seq) => state.accounts[seq - 1].name)
}

/** Live windows on these accounts holding atMs whose newest history event is a flip to balanced with this cause, by window seq. */
function windowsBalancedBy(state: WorkspaceState, accountSeqs: readonly number[], atMs: number, isCause: (detail: Readonly<Record<string, unknown>>) => boolean): ReconciliationWindow[] {
  const windowSeqs = new Set<number>()
  for (const accountSeq of accountSeqs) {
    const window = liveWindowAt(state.windows, accountSeq, atMs)
    if (window !== undefined) windowSeqs.add(window.seq)
  }
  return [...windowSeqs].sort((a, b) => a - b).map((seq) => state.windows.windows[seq - 1]).filter((window) => {
    const last = window.history[window.history.length - 1]
    return last !== undefined && last.type === 'balanced' && isCause(last.detail)
  })
}

/** A match's own event (match.created, match.reversed), then its window's flip to balanced when the match made it. */
function matchEvents(state: WorkspaceState, type: 'match.create' | 'match.reverse', outcome: Accepted, timestamp: string): LedgerEvent[] {
  const body = outcome.body as { id: string; reconciliation: string; residual: number; state: WindowStateName }
  const window = windowOf(state, body.reconciliation)
  const match = matchEvent(state, body)
  const own: LedgerEvent = { type: type === 'match.create' ? 'match.created' : 'match.reversed', timestamp, data: match.data, accountNames: match.accountNames }
  const cause = type === 'match.create' ? 'match' : 'unmatch'
  const last = window.history[window.history.length - 1]
  const flipped = last.type === 'balanced' && last.detail.cause === cause && last.detail.match === body.id
  return flipped ? [own, balancedEvent(state, window, timestamp)] : [own]
}

/**
 * A write-off with an adjustment (match-adjustment.ts): the entry's events (entry.posted; drifted windows of the
 * adjustment account), the match's, then the window's flip to balanced when the entry made it: the flip is the
 * event before the match's (the match nets to 0 and flips nothing).
 */
function adjustmentEvents(state: WorkspaceState, outcome: Accepted, timestamp: string): LedgerEvent[] {
  const entry = state.entries[state.entries.length - 1]
  const events = [...entryEvents(state, entry, entryView(state, entry), timestamp), ...matchEvents(state, 'match.create', outcome, timestamp)]
  const window = windowOf(state, (outcome.body as { reconciliation: string }).reconciliation)
  const before = window.history[window.history.length - 2]
  const flipped = before !== undefined && before.type === 'balanced' && before.detail.cause === 'entry_posted' && before.detail.entry === entry.id
  return flipped ? [...events, balancedEvent(state, window, timestamp)] : events
}

function balancedEvent(state: WorkspaceState, window: ReconciliationWindow, timestamp: string): LedgerEvent {
  return { type: 'reconciliation.balanced', timestamp, data: windowView(state, window), accountNames: accountNamesOf(state, window) }
}
