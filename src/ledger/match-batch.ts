/**
 * @module Batches of matches (docs/API.md, Matching help: proposals, dry runs, batches): up to 1,000 matches of one window in one command, all or
 * nothing; and dry runs of a match or a batch, which answer the figures the real call would leave and
 * keep nothing. Both run the real createMatch, so their checks and answers cannot drift from it.
 */

import assert from 'node:assert/strict'
import { reject, type Rejection } from '../errors.js'
import { matchBatchItemsMax, type MatchBatch, type MatchCreate, type MatchItem } from './commands.js'
import { matchCreateEvents } from './events.js'
import type { LedgerEvent } from './ledger-event.js'
import { markWindow, undoToMark } from './match-undo.js'
import { createMatch, matchShapeRejection } from './matches.js'
import { accept, type Accepted, type Outcome } from './outcome.js'
import type { WorkspaceState } from './state.js'
import { findWindow, isTerminal, residualOf } from './window-effects.js'
import type { ReconciliationWindow } from './windows-state.js'
import { terminalRejection } from './windows.js'

interface BatchRun {
  readonly ok: true
  readonly window: ReconciliationWindow
  /** Each match's answer, as a single match would have had it. */
  readonly answers: readonly Accepted[]
  /** The events each match would have emitted alone, in order (only when the workspace has subscriptions). */
  readonly events: readonly LedgerEvent[]
}

export function createMatchBatch(state: WorkspaceState, command: MatchBatch): Outcome {
  const run = runBatch(state, command)
  if (!run.ok) return run
  const outcome = accept(200, { data: run.answers.map((answer) => answer.body), residual: residualOf(state, run.window), state: run.window.state })
  return run.events.length === 0 ? outcome : { ...outcome, events: run.events }
}

/** A match's dry run: the real call's refusal, or the figures it would leave; nothing kept. */
export function whatIfMatch(state: WorkspaceState, command: MatchCreate): Outcome {
  const window = findWindow(state, command.window, command.visibility)
  // Without a live window the real call refuses before it changes anything.
  if (window === undefined || isTerminal(window.state)) return createMatch(state, command)
  const mark = markWindow(state, window)
  const outcome = createMatch(state, command)
  if (!outcome.ok) return outcome
  const body = figuresOf(outcome)
  undoToMark(state, window, mark)
  return accept(200, { dry_run: true, ...body })
}

/** A batch's dry run: the first failing item's refusal, or each match's figures and the window's after all of them. */
export function whatIfBatch(state: WorkspaceState, command: MatchBatch): Outcome {
  const window = findWindow(state, command.window, command.visibility)
  const mark = window === undefined ? null : markWindow(state, window)
  const run = runBatch(state, command)
  if (!run.ok) return run
  assert(mark !== null)
  const answer = { dry_run: true, data: run.answers.map(figuresOf), residual: residualOf(state, run.window), state: run.window.state }
  undoToMark(state, run.window, mark)
  return accept(200, answer)
}

function figuresOf(outcome: Accepted): { matched_amount: number; residual: number; state: string } {
  const body = outcome.body as { matched_amount: number; residual: number; state: string }
  return { matched_amount: body.matched_amount, residual: body.residual, state: body.state }
}

/**
 * Every item's shape first (they are schema rules, docs/API.md, Conventions), then the window, then the items in
 * order through createMatch; the first refusal undoes the ones before it and answers, its paths under
 * /matches/<i>.
 */
function runBatch(state: WorkspaceState, command: MatchBatch): BatchRun | Rejection {
  assert(command.matches.length >= 1 && command.matches.length <= matchBatchItemsMax)
  for (const [index, item] of command.matches.entries()) {
    const shape = matchShapeRejection(itemCommand(command, item))
    if (shape !== null) return itemRejection(shape, index)
  }
  const window = findWindow(state, command.window, command.visibility)
  if (window === undefined) return reject('not_found', 'No such reconciliation.')
  if (isTerminal(window.state)) return terminalRejection(window)
  const mark = markWindow(state, window)
  const answers: Accepted[] = []
  const events: LedgerEvent[] = []
  for (const [index, item] of command.matches.entries()) {
    const single = itemCommand(command, item)
    const outcome = createMatch(state, single)
    if (!outcome.ok) {
      undoToMark(state, window, mark)
      return itemRejection(outcome, index)
    }
    answers.push(outcome)
    if (state.webhooks.subscriptions.size > 0) events.push(...matchCreateEvents(state, single, outcome))
  }
  return { ok: true, window, answers, events }
}

function itemCommand(command: MatchBatch, item: MatchItem): MatchCreate {
  const single: MatchCreate = {
    type: 'match.create', at_ms: command.at_ms, key_id: command.key_id, visibility: command.visibility, window: command.window,
    statement_lines: item.statement_lines, entries: item.entries, strategy: item.strategy, reason: item.reason,
  }
  return item.date_tolerance_days === undefined ? single : { ...single, date_tolerance_days: item.date_tolerance_days }
}

/** An item's refusal as the batch's: the same code, its message and paths under the item. */
function itemRejection(rejection: Rejection, index: number): Rejection {
  const prefix = `/matches/${index}`
  const details = rejection.details?.map((detail) => ({ ...detail, path: `${prefix}${detail.path}` })) ?? [{ path: prefix, message: rejection.message }]
  return reject(rejection.code, `Match ${index}: ${rejection.message}`, details)
}
