/**
 * @module Match proposals for one window (docs/API.md, Matching help: proposals, dry runs, batches): the propose rules' first, then 1:1, then N:1 and 1:N by bounded subset sum,
 * over its unmatched lines and entries; disjoint, scored, ordered; computed in slices so the actor can
 * serve other requests between them.
 */

import assert from 'node:assert/strict'
import { reject } from '../errors.js'
import { accept, type Outcome } from './outcome.js'
import { collectPage, cursorSeq, invalidCursor, listScope, seqKeys } from './pages.js'
import { orderChosen, proposalDefaults, type Chosen, type ProposalSettings } from './proposal-chosen.js'
import { proposeGroups } from './proposal-groups.js'
import { collectItems } from './proposal-items.js'
import { proposePairs } from './proposal-pairs.js'
import { proposeByRules } from './proposal-rules.js'
import type { ProposalReason } from './proposal-score.js'
import { WorkMeter } from './proposal-work.js'
import type { WorkspaceState } from './state.js'
import type { Visibility } from './visibility.js'
import { findWindow, isTerminal } from './window-effects.js'
import type { ReconciliationWindow } from './windows-state.js'

export type { ProposalSettings } from './proposal-chosen.js'
/** Defined beside the settings (proposal-chosen.ts) so that the rules' plan can read them without importing this module. */
export { proposalDefaults }

export const dateToleranceDaysMax = 31
export const maxGroupMin = 2
export const maxGroupMax = 8


export interface Proposal {
  readonly statement_lines: readonly string[]
  readonly entries: readonly string[]
  /** amount_and_date; manual only for a rule's proposal that leaves a difference (its amount tolerance). */
  readonly strategy: 'amount_and_date' | 'manual'
  readonly date_tolerance_days: number
  readonly matched_amount: number
  readonly score: number
  readonly reasons: readonly ProposalReason[]
  /** The propose rule that made it, or null. */
  readonly rule: { readonly id: string; readonly name: string } | null
}

/**
 * The proposals for a window, as a generator that yields after every yieldSteps steps of work and
 * returns the answer; `meter` counts the work (the bench reads it). Where it yields never changes the
 * answer. What is unmatched is read while it runs (in the first slices); everything else it reads is
 * immutable, so the answer is that of the state at the start when no write lands meanwhile.
 * A terminal window has none: no match can be attached to it.
 */
export function* proposalRun(state: WorkspaceState, window: ReconciliationWindow, visibility: Visibility, settings: ProposalSettings, meter = new WorkMeter(settings.yieldSteps)): Generator<undefined, Proposal[], undefined> {
  assert(Number.isInteger(settings.dateToleranceDays) && settings.dateToleranceDays >= 0 && settings.dateToleranceDays <= dateToleranceDaysMax)
  assert(Number.isInteger(settings.maxGroup) && settings.maxGroup >= maxGroupMin && settings.maxGroup <= maxGroupMax)
  assert(settings.candidateBudget >= 1 && settings.yieldSteps >= 1)
  if (isTerminal(window.state)) return []
  const items = yield* collectItems(state, window, visibility, meter)
  const chosen: Chosen[] = []
  // The workspace's propose rules first: what they take, the search does not see.
  yield* proposeByRules(state, items, meter, chosen)
  yield* proposePairs(items, settings, meter, chosen)
  yield* proposeGroups(items, settings, meter, chosen)
  return yield* orderChosen(chosen, (each) => proposalView(each, settings), meter)
}

/** Runs every slice at once: for tests and callers that need no interleaving. */
export function runToEnd<T>(run: Generator<undefined, T, undefined>): T {
  for (;;) {
    const step = run.next()
    if (step.done === true) return step.value
  }
}

/** A rule's proposal is the match its rule would make (docs/API.md, Matching rules): the rule's date window, and manual when a difference is left. */
function proposalView(chosen: Chosen, settings: ProposalSettings): Proposal {
  const matchedAmount = chosen.rule?.matchedAmount ?? 0
  return {
    statement_lines: chosen.lines.map((line) => line.line.id),
    entries: chosen.entries.map((entry) => entry.entry.id),
    strategy: matchedAmount === 0 ? 'amount_and_date' : 'manual',
    date_tolerance_days: chosen.rule === null ? settings.dateToleranceDays : chosen.rule.rule.conditions.date_window_days,
    matched_amount: matchedAmount,
    score: chosen.scored.score,
    reasons: chosen.scored.reasons,
    rule: chosen.rule === null ? null : { id: chosen.rule.rule.id, name: chosen.rule.rule.name },
  }
}

export interface ProposalQuery {
  readonly dateToleranceDays: number
  readonly maxGroup: number
  readonly limit: number
  readonly cursor: string | null
}

/**
 * GET /v2/reconciliations/:id/proposals as a run of slices that returns the answer: a page of the whole
 * answer, which is computed each time (it must be, to be disjoint), so a cursor is a position in it and
 * the pages of one state fit together.
 */
export function* proposalsAnswer(state: WorkspaceState, windowId: string, query: ProposalQuery, visibility: Visibility): Generator<undefined, Outcome, undefined> {
  const window = findWindow(state, windowId, visibility)
  if (window === undefined) return reject('not_found', 'No such reconciliation.')
  const scope = listScope('proposals', window.id, query.dateToleranceDays, query.maxGroup)
  const startSeq = cursorSeq(scope, query.cursor)
  if (startSeq === null) return invalidCursor()
  const settings = { ...proposalDefaults, dateToleranceDays: query.dateToleranceDays, maxGroup: query.maxGroup }
  const proposals = yield* proposalRun(state, window, visibility, settings)
  return accept(200, collectPage(scope, seqKeys(startSeq, proposals.length), query.limit, (key) => proposals[key.seq - 1]))
}
