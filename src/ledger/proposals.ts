/**
 * @module Match proposals for one window (docs/API.md, Matching help: proposals, dry runs, batches): 1:1, then N:1 and 1:N by bounded subset sum,
 * over its unmatched lines and entries; disjoint, scored, ordered; computed in slices so the actor can
 * serve other requests between them.
 */

import assert from 'node:assert/strict'
import { reject } from '../errors.js'
import { accept, type Outcome } from './outcome.js'
import { collectPage, cursorSeq, invalidCursor, listScope, seqKeys } from './pages.js'
import { orderChosen, type Chosen, type ProposalSettings } from './proposal-chosen.js'
import { proposeGroups } from './proposal-groups.js'
import { collectItems } from './proposal-items.js'
import { proposePairs } from './proposal-pairs.js'
import type { ProposalReason } from './proposal-score.js'
import { WorkMeter } from './proposal-work.js'
import type { WorkspaceState } from './state.js'
import type { Visibility } from './visibility.js'
import { findWindow, isTerminal } from './window-effects.js'
import type { ReconciliationWindow } from './windows-state.js'

export type { ProposalSettings } from './proposal-chosen.js'

export const dateToleranceDaysMax = 31
export const maxGroupMin = 2
export const maxGroupMax = 8

export const proposalDefaults: ProposalSettings = {
  dateToleranceDays: 3,
  maxGroup: 4,
  /** Enough for a 4-item group in a pool of a few hundred same-sign items (bench/proposals.ts). */
  candidateBudget: 20_000,
  /**
   * A yield point every this many steps, about 50 µs of work on the bench machine: the actor resumes
   * the run until its slice's time is spent (src/actor/slice-runner.ts), so this only bounds how far a
   * slice can overrun (bench/proposals.ts measures the longest stretch between two yields).
   */
  yieldSteps: 1_000,
}

export interface Proposal {
  readonly statement_lines: readonly string[]
  readonly entries: readonly string[]
  readonly strategy: 'amount_and_date'
  readonly date_tolerance_days: number
  readonly matched_amount: 0
  readonly score: number
  readonly reasons: readonly ProposalReason[]
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

function proposalView(chosen: Chosen, settings: ProposalSettings): Proposal {
  return {
    statement_lines: chosen.lines.map((line) => line.line.id),
    entries: chosen.entries.map((entry) => entry.entry.id),
    strategy: 'amount_and_date',
    date_tolerance_days: settings.dateToleranceDays,
    matched_amount: 0,
    score: chosen.scored.score,
    reasons: chosen.scored.reasons,
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
