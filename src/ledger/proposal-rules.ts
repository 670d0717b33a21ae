/**
 * @module Proposals from the workspace's `propose` rules (docs/API.md, Matching rules, "Proposals"): the rules'
 * plan (auto-match-plan.ts, the one an auto-match applies) run over a window's items before the proposals'
 * own search, each planned match a proposal that names its rule; the search then takes what they left.
 */

import { planRules, type PlannedMatch } from './auto-match-plan.js'
import { rulesInOrder } from './matching-rules.js'
import { sumSafe } from './money.js'
import type { Chosen } from './proposal-chosen.js'
import { itemSteps, type WindowItems } from './proposal-items.js'
import { scoreProposal } from './proposal-score.js'
import type { WorkMeter } from './proposal-work.js'
import type { WorkspaceState } from './state.js'

/** The propose rules in their order (priority, then creation), each over what the ones before it left; the items they take are marked used. */
export function* proposeByRules(state: WorkspaceState, items: WindowItems, meter: WorkMeter, into: Chosen[]): Generator<undefined, void, undefined> {
  const rules = rulesInOrder(state, 'propose')
  if (rules.length === 0) return
  const planned = yield* planRules(rules, items, meter)
  for (const match of planned) {
    const matchedAmount = netOf(match)
    // A group whose running sum leaves the safe range (amounts near 2^53 of both signs) is not offered: no match could hold it.
    if (matchedAmount === null) continue
    // Scored like every proposal, the rule's date window standing for the request's tolerance.
    const scored = scoreProposal(match.lines, match.entries, match.rule.rule.conditions.date_window_days)
    into.push({ lines: match.lines, entries: match.entries, scored, rule: { rule: match.rule.rule, matchedAmount } })
    if (meter.spend(itemSteps)) yield
  }
}

/** Lines minus entries: 0 when they net (every group rule's match), else the difference a tolerance rule allows; null beyond the safe range. */
function netOf(match: PlannedMatch): number | null {
  const lines = sumSafe(match.lines.map((line) => line.amount))
  const entries = sumSafe(match.entries.map((entry) => entry.amount))
  if (lines === null || entries === null) return null
  const net = lines - entries
  return Number.isSafeInteger(net) ? net : null
}
