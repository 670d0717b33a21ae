/**
 * @module POST /v2/reconciliations/:id/auto-match (docs/API.md, Matching rules): the plan of auto-match-plan.ts
 * applied through the real createMatch, all or nothing, in one command; and its dry run, the same plan's
 * figures with nothing applied. The plan is a pure function of the state, so replay makes the same matches.
 */

import { reject, type Rejection } from '../errors.js'
import { planAutoMatch, type AutoMatchPlan, type PlannedMatch } from './auto-match-plan.js'
import type { CommandEnvelope, MatchAuto, MatchCreate } from './commands.js'
import { matchCreateEvents } from './events.js'
import type { LedgerEvent } from './ledger-event.js'
import { markWindow, undoToMark } from './match-undo.js'
import { createMatch } from './matches.js'
import { addSafe, sumSafe } from './money.js'
import { accept, type Outcome } from './outcome.js'
import { itemSteps } from './proposal-items.js'
import { proposalDefaults } from './proposal-chosen.js'
import { WorkMeter } from './proposal-work.js'
import type { WorkspaceState } from './state.js'
import type { Visibility } from './visibility.js'
import { derivedOf, findWindow, isTerminal, residualFrom, residualOf } from './window-effects.js'
import type { ReconciliationWindow } from './windows-state.js'
import { terminalRejection } from './windows.js'

function liveWindow(state: WorkspaceState, id: string, visibility: Visibility): ReconciliationWindow | Rejection {
  const window = findWindow(state, id, visibility)
  if (window === undefined) return reject('not_found', 'No such reconciliation.')
  return isTerminal(window.state) ? terminalRejection(window) : window
}

/**
 * The command, with yield points: the actor runs it in slices while the workspace's other requests wait
 * (as a statement import), replay runs it to the end; the outcome is the same. A match the window
 * refuses (its residual beyond the safe range) undoes the ones before it and answers.
 */
export function* autoMatch(state: WorkspaceState, command: MatchAuto): Generator<undefined, Outcome, undefined> {
  const window = liveWindow(state, command.window, command.visibility)
  if ('ok' in window) return window
  const run = yield* autoMatchWindow(state, window, command)
  if ('ok' in run) return run
  const answer = accept(200, { data: run.data, by_rule: run.byRule, residual: residualOf(state, window), state: window.state })
  return run.events.length === 0 ? answer : { ...answer, events: run.events }
}

/** What the rules made on one window: each match's answer, the count by rule, the events of the matches (with subscriptions only). */
export interface AutoMatched {
  readonly data: readonly object[]
  readonly byRule: Readonly<Record<string, number>>
  readonly events: readonly LedgerEvent[]
}

/**
 * The rules' plan for a live window applied through createMatch, all or nothing (a refusal undoes the
 * matches before it and is returned); also what a statement import with auto_match runs on each window it
 * opens. `envelope` is the command's: time, key, visibility.
 */
export function* autoMatchWindow(state: WorkspaceState, window: ReconciliationWindow, envelope: CommandEnvelope): Generator<undefined, AutoMatched | Rejection, undefined> {
  const meter = new WorkMeter(proposalDefaults.yieldSteps)
  const plan = yield* planAutoMatch(state, window, envelope.visibility, meter)
  const mark = markWindow(state, window)
  const data: object[] = []
  const events: LedgerEvent[] = []
  for (const planned of plan.matches) {
    const single = matchCommandOf(envelope, window.id, planned)
    const outcome = createMatch(state, single)
    if (!outcome.ok) {
      undoToMark(state, window, mark)
      return outcome
    }
    data.push(outcome.body as object)
    if (state.webhooks.subscriptions.size > 0) events.push(...matchCreateEvents(state, single, outcome))
    if (meter.spend(itemSteps)) yield
  }
  return { data, byRule: countsByRule(plan), events }
}

/**
 * A planned match as a match command: amount_and_date when it nets to zero (its dates within the rule's
 * window), else manual, its difference written off; the rule's name is the reason either way.
 */
function matchCommandOf(envelope: CommandEnvelope, windowId: string, planned: PlannedMatch): MatchCreate {
  const nets = matchedAmountOf(planned) === 0
  return {
    type: 'match.create', at_ms: envelope.at_ms, key_id: envelope.key_id, visibility: envelope.visibility, window: windowId,
    statement_lines: planned.lines.map((line) => line.line.id), entries: planned.entries.map((entry) => entry.entry.id),
    strategy: nets ? 'amount_and_date' : 'manual', reason: planned.rule.rule.name, date_tolerance_days: planned.rule.rule.conditions.date_window_days,
  }
}

/** Lines minus entries on the window's accounts (safe: items were read with amounts in range, and a rule's tolerance bounds their difference). */
function matchedAmountOf(planned: PlannedMatch): number {
  return (sumSafe(planned.lines.map((line) => line.amount)) ?? Number.NaN) - (sumSafe(planned.entries.map((entry) => entry.amount)) ?? Number.NaN)
}

function countsByRule(plan: AutoMatchPlan): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const rule of plan.rules) counts[rule.rule.id] = 0
  for (const planned of plan.matches) counts[planned.rule.rule.id] += 1
  return counts
}

/**
 * The dry run, a read in slices: the plan's matches and the window's figures after them, nothing applied.
 * Like proposals, it reads what is unmatched in its first slices: the answer is the state's at the start
 * when no write lands meanwhile.
 */
export function* autoMatchWhatIf(state: WorkspaceState, windowId: string, visibility: Visibility): Generator<undefined, Outcome, undefined> {
  const window = liveWindow(state, windowId, visibility)
  if ('ok' in window) return window
  const plan = yield* planAutoMatch(state, window, visibility, new WorkMeter(proposalDefaults.yieldSteps))
  let matchedTotal: number | null = window.matchedTotal
  const data = plan.matches.map((planned) => {
    const matchedAmount = matchedAmountOf(planned)
    matchedTotal = matchedTotal === null ? null : addSafe(matchedTotal, matchedAmount)
    return {
      rule: planned.rule.rule.id, strategy: matchedAmount === 0 ? 'amount_and_date' : 'manual', matched_amount: matchedAmount,
      statement_lines: planned.lines.map((line) => line.line.id), entries: planned.entries.map((entry) => entry.entry.id),
    }
  })
  const derived = derivedOf(state, window)
  const residual = matchedTotal === null || derived === null ? null : residualFrom(window, derived, matchedTotal)
  if (residual === null) return reject('amount_out_of_range', 'These matches would take the window\'s residual beyond the safe integer range.')
  const after = residual === 0 && window.activeMatchCount + plan.matches.length > 0 ? 'balanced' : 'open'
  return accept(200, { dry_run: true, data, by_rule: countsByRule(plan), residual, state: after })
}
