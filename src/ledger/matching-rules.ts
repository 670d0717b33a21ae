/**
 * @module Matching rules of a workspace (docs/API.md, Matching rules): create, update, delete, read, and
 * what a rule asks of a statement line. Every check runs before anything changes, on live traffic and
 * replay alike; a regular expression is compiled by linear-regex.ts, which refuses what could backtrack.
 */

import { reject, type ErrorDetail, type Rejection } from '../errors.js'
import { formatTimestamp } from './calendar.js'
import type { MatchingRuleCreate, MatchingRuleDelete, MatchingRuleFields, MatchingRuleUpdate, RuleTextCondition } from './commands.js'
import { makeId, parseId } from './ids.js'
import { compileLinearRegex, LinearRegex } from './linear-regex.js'
import type { MatchingRule } from './matching-rules-state.js'
import { accept, type Outcome } from './outcome.js'
import { collectPage, cursorSeq, invalidCursor, listScope, type OrderKey } from './pages.js'
import type { WorkspaceState } from './state.js'
import type { StatementLine } from './windows-state.js'

/** Rules per workspace at most: an auto-match runs every one of them over the window. */
export const matchingRulesMax = 100
export const ruleNameLengthMax = 200
export const rulePriorityMax = 1_000_000
/** The largest amount tolerance, in minor units. */
export const ruleToleranceMax = 1_000_000_000_000
/** The longest equals or contains text. */
export const ruleTextLengthMax = 500

/** What makes these fields no valid rule (a pattern refused, a tolerance on a group rule), or null. */
function ruleProblem(fields: MatchingRuleFields): Rejection | null {
  const details: ErrorDetail[] = []
  const { conditions } = fields
  for (const name of ['reference', 'counterparty', 'description'] as const) {
    const condition = conditions[name]
    if (condition !== null && Object.keys(condition).length !== 1) details.push({ path: `/conditions/${name}`, message: 'must hold exactly one of equals, contains, regex' })
  }
  for (const name of ['reference', 'description'] as const) {
    const condition = conditions[name]
    if (condition === null || !('regex' in condition)) continue
    const compiled = compileLinearRegex(condition.regex)
    if (!(compiled instanceof LinearRegex)) details.push({ path: `/conditions/${name}/regex`, message: `refused: ${compiled.problem}` })
  }
  if (fields.strategy !== 'one_to_one' && conditions.amount !== 'exact' && conditions.amount.tolerance > 0) {
    details.push({ path: '/conditions/amount', message: `a ${fields.strategy} rule matches exact sums only: a tolerance needs one_to_one` })
  }
  if (details.length === 0) return null
  return reject('request_invalid', `The rule is not valid: ${details.map((detail) => `${detail.path} ${detail.message}`).join('; ')}.`, details)
}

export function createMatchingRule(state: WorkspaceState, command: MatchingRuleCreate): Outcome {
  const fields = fieldsOf(command)
  const problem = ruleProblem(fields)
  if (problem !== null) return problem
  if (state.matchingRules.rules.size >= matchingRulesMax) {
    return reject('request_invalid', `A workspace holds at most ${matchingRulesMax} matching rules; delete one first.`, [{ path: '/', message: 'too many rules' }])
  }
  const seq = state.matchingRules.lastSeq + 1
  const rule: MatchingRule = { id: makeId('rule_', state.tag, seq), seq, ...fields, createdAtMs: command.at_ms, createdBy: command.key_id, updatedAtMs: command.at_ms }
  state.matchingRules.lastSeq = seq
  state.matchingRules.rules.set(rule.id, rule)
  return accept(201, ruleView(rule))
}

export function updateMatchingRule(state: WorkspaceState, command: MatchingRuleUpdate): Outcome {
  const rule = findRule(state, command.rule)
  if (rule === undefined) return reject('not_found', 'No such matching rule.')
  const fields: MatchingRuleFields = {
    name: command.name ?? rule.name,
    priority: command.priority ?? rule.priority,
    conditions: command.conditions ?? rule.conditions,
    action: command.action ?? rule.action,
    strategy: command.strategy ?? rule.strategy,
  }
  const problem = ruleProblem(fields)
  if (problem !== null) return problem
  const updated: MatchingRule = { ...rule, ...fields, updatedAtMs: command.at_ms }
  state.matchingRules.rules.set(rule.id, updated)
  return accept(200, ruleView(updated))
}

export function deleteMatchingRule(state: WorkspaceState, command: MatchingRuleDelete): Outcome {
  if (findRule(state, command.rule) === undefined) return reject('not_found', 'No such matching rule.')
  state.matchingRules.rules.delete(command.rule)
  return accept(204, null)
}

function fieldsOf(command: MatchingRuleFields): MatchingRuleFields {
  return { name: command.name, priority: command.priority, conditions: command.conditions, action: command.action, strategy: command.strategy }
}

/** A live rule of this workspace by id (an id of another workspace names none). */
export function findRule(state: WorkspaceState, id: string): MatchingRule | undefined {
  if (parseId('rule_', state.tag, id) === 0) return undefined
  return state.matchingRules.rules.get(id)
}

export function ruleView(rule: MatchingRule): object {
  return {
    id: rule.id, name: rule.name, priority: rule.priority, conditions: rule.conditions, action: rule.action, strategy: rule.strategy,
    created_at: formatTimestamp(rule.createdAtMs), updated_at: formatTimestamp(rule.updatedAtMs),
  }
}

export function getMatchingRule(state: WorkspaceState, id: string): Outcome {
  const rule = findRule(state, id)
  return rule === undefined ? reject('not_found', 'No such matching rule.') : accept(200, ruleView(rule))
}

/** Live rules in creation order; the cursor is a rule seq. */
export function listMatchingRules(state: WorkspaceState, limit: number, cursor: string | null): Outcome {
  const scope = listScope('matching-rules')
  const fromSeq = cursorSeq(scope, cursor)
  if (fromSeq === null) return invalidCursor()
  const bySeq = new Map([...state.matchingRules.rules.values()].map((rule) => [rule.seq, rule]))
  const keys = (function* (): Generator<OrderKey> {
    for (const rule of bySeq.values()) if (rule.seq >= fromSeq) yield { atMs: 0, seq: rule.seq }
  })()
  return accept(200, collectPage(scope, keys, limit, ({ seq }) => ruleView(bySeq.get(seq)!)))
}

/** A rule ready to run: its line test compiled once per run. */
export interface RunnableRule {
  readonly rule: MatchingRule
  /** 0 for exact. */
  readonly tolerance: number
  readonly fitsLine: (line: StatementLine) => boolean
}

/** The rules with this action in the order they apply: priority, lower first, then creation. */
export function rulesInOrder(state: WorkspaceState, action: MatchingRule['action']): RunnableRule[] {
  const rules = [...state.matchingRules.rules.values()].filter((rule) => rule.action === action)
  rules.sort((a, b) => a.priority - b.priority || a.seq - b.seq)
  return rules.map(runnable)
}

export function runnable(rule: MatchingRule): RunnableRule {
  const { reference, counterparty, description, amount } = rule.conditions
  const tests: ((line: StatementLine) => boolean)[] = []
  if (reference !== null) {
    const test = textTest(reference)
    tests.push((line) => line.reference !== null && test(line.reference))
  }
  if (counterparty !== null) {
    const test = textTest(counterparty)
    tests.push((line) => [line.counterparty?.name ?? null, line.counterparty?.account ?? null].some((part) => part !== null && test(part)))
  }
  if (description !== null) {
    const test = textTest(description)
    tests.push((line) => line.description !== null && test(line.description))
  }
  return { rule, tolerance: amount === 'exact' ? 0 : amount.tolerance, fitsLine: (line) => tests.every((test) => test(line)) }
}

/** equals and contains ignore case (lower case on both sides); a regex runs as written. */
function textTest(condition: RuleTextCondition): (text: string) => boolean {
  if ('regex' in condition) {
    const compiled = compileLinearRegex(condition.regex)
    // Checked when the rule was written: a stored rule always compiles.
    if (!(compiled instanceof LinearRegex)) throw new Error(`stored rule pattern does not compile: ${compiled.problem}`)
    return (text) => compiled.test(text)
  }
  if ('equals' in condition) {
    const wanted = condition.equals.toLowerCase()
    return (text) => text.toLowerCase() === wanted
  }
  const wanted = condition.contains.toLowerCase()
  return (text) => text.toLowerCase().includes(wanted)
}
