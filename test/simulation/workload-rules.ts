/**
 * @module Simulation: the random requests of matching rules and the auto-match — rules of every strategy on
 * references, amounts and dates (now and then one the service refuses: a backreference, a lookahead, a
 * tolerance on a group rule), changed and deleted (now and then an unknown one), and auto-matches of a
 * window, run or dry, on live windows mostly (then an unknown or terminal one); and the decisions on four-eyes
 * approvals (approve or reject, mostly a pending one, now and then a decided or unknown one).
 */

import type { MatchingRuleFields, RuleConditions } from '../../src/ledger/commands.ts'
import type { Request, WorkspaceModel } from './auditor.ts'
import { pendingOf } from './auditor-approvals.ts'
import type { ReadRequest } from './auditor-bulk.ts'
import type { Prng } from './prng.ts'
import { pickWindow, type Client } from './workload.ts'

const references: readonly (RuleConditions['reference'])[] = [
  null, null, null, { contains: 'inv' }, { equals: 'INV-7' }, { regex: '^INV-\\d+$' }, { regex: '(a+)+$' }, { regex: '^ref-[1-4]' },
]
const refusedReferences: readonly (RuleConditions['reference'])[] = [{ regex: '(INV)\\1' }, { regex: 'INV(?=-)' }, { regex: '(?<!x)INV' }]

/** A statement line's reference as the simulation writes them: invoices, bank refs, or none. */
export function lineReference(prng: Prng): string | null {
  return prng.pick([null, null, `INV-${prng.int(1, 12)}`, `inv ${prng.int(1, 12)}`, 'aaaaaaaaaaaaaaaaaaaaaaab'])
}

function ruleFields(prng: Prng, model: WorkspaceModel): MatchingRuleFields {
  const strategy = prng.pick(['one_to_one', 'one_to_one', 'many_to_one', 'one_to_many'] as const)
  const tolerant = prng.chance(strategy === 'one_to_one' ? 0.4 : 0.05)
  return {
    name: `rule ${model.rules.length + model.rulesDeleted + 1}`, priority: prng.int(0, 5), action: prng.chance(0.85) ? 'auto_match' : 'propose', strategy,
    conditions: {
      amount: tolerant ? { tolerance: prng.int(1, 30) } : 'exact', date_window_days: prng.int(0, 4),
      reference: prng.chance(0.06) ? prng.pick(refusedReferences) : prng.pick(references), counterparty: null, description: null,
    },
  }
}

function ruleId(prng: Prng, model: WorkspaceModel): string {
  return model.rules.length > 0 && prng.chance(0.9) ? prng.pick(model.rules).id : 'rule_nope'
}

export function ruleCreate(prng: Prng, model: WorkspaceModel): Request {
  return { type: 'matching_rule.create', ...ruleFields(prng, model) }
}

export function ruleUpdate(prng: Prng, model: WorkspaceModel): Request {
  const fields = ruleFields(prng, model)
  const change = prng.pick(['priority', 'conditions', 'strategy', 'action'] as const)
  return { type: 'matching_rule.update', rule: ruleId(prng, model), [change]: fields[change] }
}

export function ruleDelete(prng: Prng, model: WorkspaceModel): Request {
  return { type: 'matching_rule.delete', rule: ruleId(prng, model) }
}

export function autoMatch(prng: Prng, model: WorkspaceModel, client: Client): Request {
  const window = pickWindow(prng, model, client)
  return { type: 'match.auto', window: typeof window === 'string' ? window : window.id }
}

export function autoMatchDryRun(prng: Prng, model: WorkspaceModel, client: Client): ReadRequest {
  const window = pickWindow(prng, model, client)
  return { type: 'match.auto.dry_run', window: typeof window === 'string' ? window : window.id }
}

/** An approve or a reject (with its reason) of an approval: mostly a pending one, then any, then an unknown id. */
export function approvalDecide(prng: Prng, model: WorkspaceModel): Request {
  const pending = pendingOf(model)
  const approval = pending.length > 0 && prng.chance(0.85) ? prng.pick(pending).id : model.approvals.length > 0 && prng.chance(0.8) ? prng.pick(model.approvals).id : 'apr_nope'
  const approve = prng.chance(0.65)
  return { type: 'approval.decide', approval, decision: approve ? 'approve' : 'reject', reason: approve ? null : 'sim: not this one', key_name: null }
}
