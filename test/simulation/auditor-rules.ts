/**
 * @module Simulation: the auditor's predictions for matching rules and the auto-match
 * (docs/API.md, Matching rules), written from the docs, not from src/ledger. Rule changes are predicted exactly (a pattern that
 * needs backtracking or a tolerance on a group rule is request_invalid, an unknown rule not_found). The
 * auto-match's choice is the matcher's, so, as for proposals, every match it answers is checked to be one
 * the rules allow — the rule named by its reason is an auto_match rule that fits its lines, its shape is the
 * rule's strategy, amounts within the tolerance (exact for groups), dates within the rule's window, its
 * strategy and matched_amount as a single match would be — and one the model itself accepts, against a copy
 * as the matches before it left it; by_rule counts them, the window's figures are the copy's after
 * them, and no line that fits a 1:1 rule is left beside a free entry that rule would take. The
 * command's matches are then committed to the model, so every later check sees them.
 */

import type { MatchingRuleFields, RuleTextCondition } from '../../src/ledger/commands.ts'
import { daysApart, firstProblem, isTerminal, localDate, rejected, residualOf, type Context, type Expectation, type ModelWindow, type Request, type WorkspaceModel } from './auditor.ts'

export interface ModelRule { readonly id: string; readonly seq: number; fields: MatchingRuleFields }

type RuleCreate = Extract<Request, { type: 'matching_rule.create' }>
type RuleUpdate = Extract<Request, { type: 'matching_rule.update' }>
type RuleDelete = Extract<Request, { type: 'matching_rule.delete' }>

/** What the simulation's rules use that the service refuses: backreferences and lookaround; a tolerance on a group rule. */
function ruleInvalid(fields: MatchingRuleFields): boolean {
  const { reference, amount } = fields.conditions
  if (reference !== null && 'regex' in reference && /\\[1-9]|\(\?[=!<]/.test(reference.regex)) return true
  return fields.strategy !== 'one_to_one' && amount !== 'exact' && amount.tolerance > 0
}

function ruleProblem(expected: MatchingRuleFields, body: any): string | null {
  for (const field of ['name', 'priority', 'action', 'strategy'] as const) {
    if (body[field] !== expected[field]) return `rule ${field}: expected ${JSON.stringify(expected[field])}, got ${JSON.stringify(body[field])}`
  }
  const sorted = (conditions: object) => JSON.stringify(Object.entries(conditions).sort(([a], [b]) => a.localeCompare(b)))
  return sorted(body.conditions) === sorted(expected.conditions) ? null : `rule conditions: expected ${JSON.stringify(expected.conditions)}, got ${JSON.stringify(body.conditions)}`
}

export function expectRuleCreate(model: WorkspaceModel, request: RuleCreate): Expectation {
  const { type, ...fields } = request
  void type
  if (ruleInvalid(fields)) return rejected('request_invalid')
  return {
    ok: true,
    status: 201,
    check: (body) => ruleProblem(fields, body),
    commit: (body) => { model.rules.push({ id: body.id, seq: model.rules.length + model.rulesDeleted + 1, fields }) },
  }
}

export function expectRuleUpdate(model: WorkspaceModel, request: RuleUpdate): Expectation {
  const rule = model.rules.find((each) => each.id === request.rule)
  if (rule === undefined) return rejected('not_found')
  const { type, rule: id, ...changes } = request
  void type, void id
  const fields: MatchingRuleFields = { ...rule.fields, ...changes }
  if (ruleInvalid(fields)) return rejected('request_invalid')
  return { ok: true, status: 200, check: (body) => ruleProblem(fields, body), commit: () => { rule.fields = fields } }
}

export function expectRuleDelete(model: WorkspaceModel, request: RuleDelete): Expectation {
  const index = model.rules.findIndex((each) => each.id === request.rule)
  if (index < 0) return rejected('not_found')
  return { ok: true, status: 204, check: () => null, commit: () => { model.rules.splice(index, 1); model.rulesDeleted++ } }
}

function textFits(condition: RuleTextCondition, text: string | null): boolean {
  if (text === null) return false
  if ('regex' in condition) return new RegExp(condition.regex, 'u').test(text)
  if ('equals' in condition) return text.toLowerCase() === condition.equals.toLowerCase()
  return text.toLowerCase().includes(condition.contains.toLowerCase())
}

interface AnsweredMatch { readonly statement_lines: string[]; readonly entries: string[]; readonly strategy: string; readonly matched_amount: number; readonly reason?: string; readonly rule?: string }

/**
 * One answered match against its rule: shape, fit, amounts, dates. `lines` and `entries` are model indexes.
 */
export function ruleMatchProblem(model: WorkspaceModel, window: ModelWindow, rule: ModelRule, lines: readonly number[], entries: readonly number[]): string | null {
  const { strategy, conditions } = rule.fields
  const shape = strategy === 'one_to_one' ? lines.length === 1 && entries.length === 1
    : strategy === 'one_to_many' ? lines.length === 1 && entries.length >= 2 && entries.length <= 4 : entries.length === 1 && lines.length >= 2 && lines.length <= 4
  if (!shape) return `a ${strategy} match of ${lines.length} lines and ${entries.length} entries`
  if (lines.some((line) => conditions.reference !== null && !textFits(conditions.reference, window.lines[line].reference))) return `a line that does not fit rule ${rule.id}`
  const lineDays = lines.map((line) => window.lines[line].date)
  const entryDays = entries.map((entry) => localDate(model.entries[entry].atMs, window.timeZone))
  const [targets, items] = strategy === 'many_to_one' ? [entryDays, lineDays] : [lineDays, entryDays]
  if (items.some((day) => daysApart(day, targets[0]) > conditions.date_window_days)) return `an item more than ${conditions.date_window_days} days from its target`
  const difference = lines.reduce((sum, line) => sum + window.lines[line].amount, 0) - entries.reduce((sum, entry) => sum + model.entryAmount(window, entry), 0)
  const tolerance = conditions.amount === 'exact' ? 0 : conditions.amount.tolerance
  return Math.abs(difference) <= tolerance ? null : `a difference of ${difference}, beyond the tolerance ${tolerance}`
}

/**
 * A 1:1 rule takes, for each line that fits it, some free entry within its tolerance and date window
 * when there is one; the rules after it only take more. So once all have run, no line that fits a 1:1
 * rule is left with such an entry free: if one is, a rule skipped a line it should have taken.
 */
function pairLeft(model: WorkspaceModel, window: ModelWindow, rules: readonly ModelRule[], context: Context): string | null {
  const free = model.entries.map((_, index) => index).filter((index) => {
    const entry = model.entries[index]
    return !window.matchedEntries.has(index) && entry.atMs >= window.startMs && entry.atMs < window.endMs && model.entryAmount(window, index) !== 0 && model.entry(entry.id, context.visibility) !== undefined
  })
  for (const rule of rules.filter((each) => each.fields.strategy === 'one_to_one')) {
    const { conditions } = rule.fields
    const tolerance = conditions.amount === 'exact' ? 0 : conditions.amount.tolerance
    for (const [index, line] of window.lines.entries()) {
      if (line.match >= 0 || (conditions.reference !== null && !textFits(conditions.reference, line.reference))) continue
      const left = free.find((entry) => Math.abs(model.entryAmount(window, entry) - line.amount) <= tolerance && daysApart(line.date, localDate(model.entries[entry].atMs, window.timeZone)) <= conditions.date_window_days)
      if (left !== undefined) return `line l${index + 1} fits ${rule.fields.name} and entry ${model.entries[left].id} is free for it, but it was left unmatched`
    }
  }
  return null
}

/** The auto-match (dry or not): the window's refusals, then every answered match checked as the module says. */
export function expectAutoMatch(model: WorkspaceModel, request: { readonly window: string }, context: Context, dryRun: boolean): Expectation {
  const windowIndex = model.window(request.window, context.visibility)
  if (windowIndex === undefined) return rejected('not_found')
  if (isTerminal(model.windows[windowIndex])) return rejected('recon_state_invalid')
  const autoRules = model.rules.filter((rule) => rule.fields.action === 'auto_match')
  // A match names its rule by the rule's name; names may repeat (a create retried after its key expired makes a second
  // rule of that name), so among the rules of that name the one its lines and entries fit is taken.
  const commands = (data: AnsweredMatch[], trial: WorkspaceModel, window: ModelWindow) => data.map((match) => {
    const named = autoRules.filter((each) => (dryRun ? each.id === match.rule : each.fields.name === match.reason))
    const lines = match.statement_lines.map((id) => Number(id.slice(1)) - 1)
    const entries = match.entries.map((id) => trial.entry(id, context.visibility) ?? -1)
    const known = !entries.includes(-1) && lines.every((line) => line >= 0 && line < window.lines.length)
    const rule = named.length > 1 && known ? (named.find((each) => ruleMatchProblem(trial, window, each, lines, entries) === null) ?? named[0]) : named[0]
    return { rule, request: { type: 'match.create' as const, window: request.window, statement_lines: match.statement_lines, entries: match.entries, strategy: match.strategy as 'manual', reason: rule?.fields.name ?? null, date_tolerance_days: rule?.fields.conditions.date_window_days ?? 0 } }
  })
  return {
    ok: true,
    status: 200,
    check: (body) => {
      if (!Array.isArray(body.data) || (dryRun && body.dry_run !== true)) return `auto-match answered ${JSON.stringify(body).slice(0, 200)}`
      const trial = model.clone()
      const window = trial.windows[windowIndex]
      const counts: Record<string, number> = Object.fromEntries(autoRules.map((rule) => [rule.id, 0]))
      for (const [index, { rule, request: single }] of commands(body.data, trial, window).entries()) {
        const match = body.data[index] as AnsweredMatch
        if (rule === undefined) return `match ${index} names no auto_match rule: ${JSON.stringify(match)}`
        const lines = single.statement_lines.map((id) => Number(id.slice(1)) - 1)
        const entries = single.entries.map((id) => trial.entry(id, context.visibility) ?? -1)
        if (entries.includes(-1) || lines.some((line) => !(line >= 0 && line < window.lines.length))) return `match ${index}: an unknown line or entry`
        const problem = ruleMatchProblem(trial, window, rule, lines, entries)
        if (problem !== null) return `match ${index} (${rule.fields.name}): ${problem}`
        const nets = match.matched_amount === 0
        if (match.strategy !== (nets ? 'amount_and_date' : 'manual')) return `match ${index}: strategy ${match.strategy} for a matched_amount of ${match.matched_amount}`
        const expectation = trial.expect(single, context)
        if (!expectation.ok) return `match ${index} ${JSON.stringify(match)} would be refused: ${expectation.code}`
        const refused = dryRun ? null : expectation.check(match)
        if (refused !== null) return `match ${index}: ${refused}`
        if (dryRun && match.matched_amount !== lines.reduce((sum, line) => sum + window.lines[line].amount, 0) - entries.reduce((sum, entry) => sum + trial.entryAmount(window, entry), 0)) return `match ${index}: matched_amount ${match.matched_amount}`
        expectation.commit({ id: `?${index}` })
        counts[rule.id]++
      }
      return firstProblem(
        pairLeft(trial, window, autoRules, context),
        JSON.stringify(Object.entries(body.by_rule ?? {}).sort()) === JSON.stringify(Object.entries(counts).sort()) ? null : `by_rule ${JSON.stringify(body.by_rule)}, the matches count ${JSON.stringify(counts)}`,
        body.residual === residualOf(window) && body.state === window.state ? null : `auto-match figures ${JSON.stringify([body.residual, body.state])}, the model has ${JSON.stringify([residualOf(window), window.state])}`,
      )
    },
    commit: (body) => {
      if (dryRun) return
      for (const [index, { request: single }] of commands(body.data, model, model.windows[windowIndex]).entries()) {
        const expectation = model.expect(single, context)
        if (!expectation.ok) throw new Error(`model: auto-match ${index} refused on commit (${expectation.code})`)
        expectation.commit(body.data[index])
      }
    },
  }
}
