/**
 * @module The events an accepted command emits (webhooks), derived from the command, its answer and the state after
 * it, in the order they happened: the command's own event, then each window it turned balanced, then each closed
 * window whose period it posted into (drifted). Flips are read from the window history the command just wrote, so
 * there is one source of truth for "this command balanced that window". One function per kind of command; the
 * command table (command-table.ts) names each type's.
 */

import { formatTimestamp } from './calendar.js'
import { closedWindowsAt } from './closed-windows.js'
import type { EntryBatch, EntryPost, EntryReverse, MatchCreate, MatchReverse, StatementsImport, WebhookEventType, WindowOpen, WindowTransition, WorkspaceCommand } from './commands.js'
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

/** The time an event carries: its command's. */
function timestampOf(command: WorkspaceCommand): string {
  return formatTimestamp(command.at_ms)
}

function windowEvent(state: WorkspaceState, type: WebhookEventType, data: unknown, window: ReconciliationWindow, timestamp: string): LedgerEvent {
  return { type, timestamp, data, accountNames: accountNamesOf(state, window) }
}

/** No webhook event (docs/API.md, Webhooks: accounts, lines, subscriptions, rules, annotations and seal keys have none). */
export function noEvents(): LedgerEvent[] {
  return []
}

/** entry.post, entry.reverse: the entry it made, then the windows it turned balanced or drifted. */
export function postingEvents(state: WorkspaceState, command: EntryPost | EntryReverse, outcome: Accepted): LedgerEvent[] {
  return entryEvents(state, state.entries[state.entries.length - 1], outcome.body, timestampOf(command))
}

/** entry.batch: each posted item's events, in order (a refused item has none). */
export function batchEvents(state: WorkspaceState, command: EntryBatch, outcome: Accepted): LedgerEvent[] {
  const timestamp = timestampOf(command)
  const events: LedgerEvent[] = []
  for (const item of (outcome.body as BatchResult).items) if (!('ok' in item)) events.push(...entryEvents(state, item, entryView(state, item), timestamp))
  return events
}

/** window.open: reconciliation.opened. */
export function openedEvents(state: WorkspaceState, command: WindowOpen, outcome: Accepted): LedgerEvent[] {
  return [windowEvent(state, 'reconciliation.opened', outcome.body, windowOf(state, (outcome.body as { id: string }).id), timestampOf(command))]
}

/** statements.import: reconciliation.opened for each window this command opened. */
export function importEvents(state: WorkspaceState, command: StatementsImport, outcome: Accepted): LedgerEvent[] {
  // Only the windows this command opened: a statement imported before answers its window, and was announced then.
  const timestamp = timestampOf(command)
  const views = (outcome.body as { data: { id: string }[] }).data
  const firstNewSeq = state.windows.windows.length - views.length + 1
  return views.map((view) => ({ view, window: windowOf(state, view.id) }))
    .filter(({ window }) => window.seq >= firstNewSeq && window.openedAtMs === command.at_ms && window.openedBy === command.key_id)
    .map(({ view, window }) => windowEvent(state, 'reconciliation.opened', view, window, timestamp))
}

/** window.transition: reconciliation.closed or .abandoned; none while held for approval (202 changed nothing yet). */
export function transitionEvents(state: WorkspaceState, command: WindowTransition, outcome: Accepted): LedgerEvent[] {
  if (outcome.status === 202) return []
  const body = outcome.body as { id: string; state?: string }
  return [windowEvent(state, body.state === 'closed' ? 'reconciliation.closed' : 'reconciliation.abandoned', outcome.body, windowOf(state, body.id), timestampOf(command))]
}

/**
 * match.create: match.created and the flip it made; a write-off with an adjustment its entry's events too; none while
 * held for approval. A batch and an auto-match gather their matches' events through it, one by one (match-batch.ts, auto-match.ts).
 */
export function matchCreateEvents(state: WorkspaceState, command: MatchCreate, outcome: Accepted): LedgerEvent[] {
  if (outcome.status === 202) return []
  if (command.adjustment !== undefined) return adjustmentEvents(state, outcome, timestampOf(command))
  return matchEvents(state, command.type, outcome, timestampOf(command))
}

/** match.reverse: match.reversed and the flip it made. */
export function matchReverseEvents(state: WorkspaceState, command: MatchReverse, outcome: Accepted): LedgerEvent[] {
  return matchEvents(state, command.type, outcome, timestampOf(command))
}

/** match.batch, match.auto: the events the command gathered as it made its matches (none while held for approval). */
export function gatheredEvents(outcome: Accepted): LedgerEvent[] {
  return outcome.events === undefined ? [] : [...outcome.events]
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
