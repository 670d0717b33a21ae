/**
 * @module Simulation: the auditor's predictions for the commands that carry many items (bulk postings,
 * match batches and their dry runs, statement imports) and for the proposals read. A batch is predicted
 * item by item on a copy of the model, each item by the model's own single-item rules against the copy as
 * the items before it left it (ids there are placeholders); the reply's ids are learned on commit, when
 * the items are applied to the model itself. Like auditor.ts, written from docs/API.md, not from src/ledger.
 */

import type { EntryBatchItem, MatchItem } from '../../src/ledger/commands.ts'
import {
  checkWindowBody, dayAfter, firstProblem, isTerminal, localDate, midnightMs, rejected, residualOf, windowFigures,
  type Context, type Expectation, type ModelWindow, type Request, type WorkspaceModel,
} from './auditor.ts'
import { expectDecide, gate, isGated } from './auditor-approvals.ts'
import { expectAutoMatch, expectRuleCreate, expectRuleDelete, expectRuleUpdate, ruleMatchProblem } from './auditor-rules.ts'

/** The reads the simulation checks besides windows and balances: a match batch's dry run, proposals, and an auto-match's dry run. */
export type ReadRequest =
  | { readonly type: 'match.batch.dry_run'; readonly window: string; readonly matches: readonly MatchItem[] }
  | { readonly type: 'proposals'; readonly window: string; readonly date_tolerance_days: number; readonly max_group: number; readonly limit: number }
  | { readonly type: 'match.auto.dry_run'; readonly window: string }

export type SimRequest = Request | ReadRequest

type EntryBatchRequest = Extract<Request, { type: 'entry.batch' }>
type MatchBatchRequest = Extract<Request, { type: 'match.batch' }>
type ImportRequest = Extract<Request, { type: 'statements.import' }>

export function isRead(request: SimRequest): request is ReadRequest {
  return request.type === 'match.batch.dry_run' || request.type === 'proposals' || request.type === 'match.auto.dry_run'
}

/** The model's prediction for any request the simulation sends: a close or write-off through the approvals gate. */
export function predict(model: WorkspaceModel, request: SimRequest, context: Context): Expectation {
  if (request.type === 'approval.decide') return expectDecide(model, request, context, (action, as) => predictAction(model, action, as))
  const own = predictAction(model, request, context)
  return isGated(request) ? gate(model, request, context, own) : own
}

/** The prediction of a request as it runs when not held (an approved action runs so). */
function predictAction(model: WorkspaceModel, request: SimRequest, context: Context): Expectation {
  switch (request.type) {
    case 'entry.batch': return expectEntryBatch(model, request, context)
    case 'match.batch': return expectMatchBatch(model, request, context, false)
    case 'match.batch.dry_run': return expectMatchBatch(model, request, context, true)
    case 'statements.import': return expectImport(model, request, context)
    case 'proposals': return expectProposals(model, request, context)
    case 'matching_rule.create': return expectRuleCreate(model, request)
    case 'matching_rule.update': return expectRuleUpdate(model, request)
    case 'matching_rule.delete': return expectRuleDelete(model, request)
    case 'match.auto': return expectAutoMatch(model, request, context, false)
    case 'match.auto.dry_run': return expectAutoMatch(model, request, context, true)
    default: return model.expect(request, context)
  }
}

function entryRequest(item: EntryBatchItem, rules: number): Request {
  return { type: 'entry.post', lines: item.lines, effective_at_ms: item.effective_at_ms, description: item.description, metadata: item.metadata, rules }
}

/** docs/API.md, Bulk postings: atomic, the first refused item answers for the batch; else each item posted or refused in its place. */
function expectEntryBatch(model: WorkspaceModel, request: EntryBatchRequest, context: Context): Expectation {
  const trial = model.clone()
  const each: Expectation[] = []
  for (const [index, item] of request.entries.entries()) {
    const expectation = 'refused' in item ? rejected(item.refused.code) : trial.expect(entryRequest(item, request.rules), context)
    if (!expectation.ok && request.atomic) return expectation
    if (expectation.ok) expectation.commit({ id: `?${index}` })
    each.push(expectation)
  }
  return {
    ok: true,
    status: 201,
    check: (body) => itemsProblem(each, body.data),
    commit: (body) => {
      request.entries.forEach((item, index) => {
        if ('refused' in item) return
        const expectation = model.expect(entryRequest(item, request.rules), context)
        if (expectation.ok) expectation.commit(body.data[index])
      })
    },
  }
}

/** Each item's answer against its prediction: the entry, or the error envelope with the predicted code. */
function itemsProblem(each: readonly Expectation[], data: any[]): string | null {
  if (!Array.isArray(data) || data.length !== each.length) return `batch answered ${Array.isArray(data) ? data.length : 'no'} items, the model expects ${each.length}`
  for (const [index, expectation] of each.entries()) {
    const item = data[index]
    if (!expectation.ok) {
      if (item.error?.code !== expectation.code) return `item ${index}: ${JSON.stringify(item)}, the model expects ${expectation.code}`
      continue
    }
    if (item.error !== undefined) return `item ${index} refused ${item.error.code}, the model expects it posted`
    const problem = expectation.check(item)
    if (problem !== null) return `item ${index}: ${problem}`
  }
  return null
}

function shapeInvalid(item: MatchItem): boolean {
  const repeated = (ids: readonly string[]) => new Set(ids).size !== ids.length
  if (repeated(item.statement_lines) || repeated(item.entries)) return true
  return item.strategy === 'write_off' ? item.entries.length > 0 || (item.reason ?? '') === '' : item.entries.length === 0
}

/** docs/API.md, Matching help: proposals, dry runs, batches: every item's shape, the window, then the items in order, all or nothing; a dry run answers the figures only. */
function expectMatchBatch(model: WorkspaceModel, request: Pick<MatchBatchRequest, 'window' | 'matches'>, context: Context, dryRun: boolean): Expectation {
  if (request.matches.some(shapeInvalid)) return rejected('request_invalid')
  const windowIndex = model.window(request.window, context.visibility)
  if (windowIndex === undefined) return rejected('not_found')
  if (isTerminal(model.windows[windowIndex])) return rejected('recon_state_invalid')
  const trial = model.clone()
  const each: Expectation[] = []
  for (const [index, item] of request.matches.entries()) {
    const expectation = trial.expect({ type: 'match.create', window: request.window, ...item }, context)
    if (!expectation.ok) return expectation
    expectation.commit({ id: `?${index}` })
    each.push(expectation)
  }
  const after = trial.windows[windowIndex]
  const figures = { residual: residualOf(after), state: after.state }
  const windowId = model.windows[windowIndex].id
  return {
    ok: true,
    status: 200,
    check: (body) => {
      // A dry run's items are the figures alone; the match check reads its window id from them too.
      const items = dryRun ? body.data?.map((figure: object) => ({ reconciliation: windowId, ...figure })) : body.data
      return firstProblem(
        dryRun && body.dry_run !== true ? 'a dry run answered without dry_run: true' : null,
        itemsProblem(each, items),
        body.residual === figures.residual && body.state === figures.state ? null : `batch figures ${JSON.stringify([body.residual, body.state])}, the model has ${JSON.stringify(figures)}`,
      )
    },
    commit: (body) => {
      if (dryRun) return
      request.matches.forEach((item, index) => {
        const expectation = model.expect({ type: 'match.create', window: request.window, ...item }, context)
        if (!expectation.ok) throw new Error(`model: match ${index} of an accepted batch refused on commit (${expectation.code})`)
        expectation.commit(body.data[index])
      })
    },
  }
}

/** A statement the file opens as a new window, or the window an earlier import opened for it. */
type Plan = { readonly known: ModelWindow } | { readonly window: ModelWindow }

/** docs/API.md, Bank statement formats, in its order: window_invalid, account_unknown, idempotency_conflict, window_overlap, currency_mismatch. */
function expectImport(model: WorkspaceModel, request: ImportRequest, context: Context): Expectation {
  const today = localDate(context.atMs, request.time_zone)
  if (request.statements.some((statement) => statement.to < statement.from || statement.to > today)) return rejected('window_invalid')
  const accounts = request.statements.map((statement) => model.accountByExternalId(statement.account, context.visibility))
  if (accounts.includes(undefined)) return rejected('account_unknown')
  const plans: Plan[] = []
  for (const [index, statement] of request.statements.entries()) {
    const account = accounts[index]!
    const known = model.windows.find((window) => window.fingerprint !== null && window.state !== 'abandoned' && window.statementRef === statement.statement_ref && window.accounts[0] === account)
    if (known !== undefined && known.fingerprint !== statement.fingerprint) return rejected('idempotency_conflict')
    plans.push(known !== undefined ? { known } : { window: importedWindow(model, statement, account, request.time_zone) })
  }
  const fresh = plans.flatMap((plan) => ('window' in plan ? [plan.window] : []))
  const meet = (a: ModelWindow, b: ModelWindow) => a.startMs < b.endMs && b.startMs < a.endMs
  // A new window meets no live window on its account, nor another new one of the file on the same account.
  const overlap = fresh.some((window, index) => (
    model.windows.some((other) => !isTerminal(other) && other.accounts.includes(window.accounts[0]) && meet(window, other))
    || fresh.slice(0, index).some((other) => other.accounts[0] === window.accounts[0] && meet(window, other))
  ))
  if (overlap) return rejected('window_overlap')
  if (request.statements.some((statement, index) => 'window' in plans[index] && statement.currency !== 'USD')) return rejected('currency_mismatch')
  const expectation: Expectation = {
    ok: true,
    status: 201,
    check: (body) => firstProblem(
      body.statements === plans.length && body.data?.length === plans.length ? null : `import answered ${body.statements} statements, the model expects ${plans.length}`,
      ...plans.map((plan, index) => ('known' in plan ? checkImportedAs(model, plan.known, body.data[index]) : checkWindowBody(model, { ...plan.window, id: body.data[index].id }, body.data[index]))),
    ),
    commit: (body) => plans.forEach((plan, index) => {
      if (!('window' in plan)) return
      const window = { ...plan.window, id: body.data[index].id }
      model.windows.push({ ...window, importedAs: windowFigures(model, window) })
    }),
  }
  return fresh.length === 0 ? { ...expectation, replayed: true } : expectation
}

/** A statement imported again is answered as its first import answered: the figures then, the accounts' names now. */
function checkImportedAs(model: WorkspaceModel, window: ModelWindow, body: unknown): string | null {
  if (window.importedAs === undefined) return `window ${window.id} is known as imported, but the model holds no answer of its import`
  const accounts = window.accounts.map((index) => model.accounts[index].name)
  return checkWindowBody(model, window, body, { ...window.importedAs, accounts })
}

/** The window a statement opens: its period in the import's zone, tolerance 0, its lines (those dated outside kept). */
function importedWindow(model: WorkspaceModel, statement: ImportRequest['statements'][number], account: number, timeZone: string): ModelWindow {
  const startMs = midnightMs(statement.from, timeZone)
  const endMs = midnightMs(dayAfter(statement.to), timeZone)
  const derived = model.movement([account], startMs, endMs)
  return {
    id: '', accounts: [account], from: statement.from, to: statement.to, timeZone, startMs, endMs, claimed: statement.claimed_movement, tolerance: 0,
    statementRef: statement.statement_ref, fingerprint: statement.fingerprint, state: 'open', derived, matchedTotal: 0, activeMatches: 0, activeWriteOffs: 0,
    lines: statement.lines.map((line) => ({ amount: line.amount, date: line.date, reference: line.reference ?? null, match: -1 })), matchedEntries: new Map(), frozenResidual: null, everBalanced: false,
  }
}

/** A proposal of the proposals' own search: a netting match within the request's tolerance and group size. */
function searchProposalProblem(proposal: any, request: Extract<ReadRequest, { type: 'proposals' }>): string | null {
  if (proposal.strategy !== 'amount_and_date' || proposal.date_tolerance_days !== request.date_tolerance_days) return 'not the search\'s strategy or tolerance'
  return proposal.statement_lines.length + proposal.entries.length > request.max_group + 1 ? `larger than max_group ${request.max_group}` : null
}

/**
 * A proposal a `propose` rule made (docs/API.md, Matching rules): the rule exists and proposes, the match fits
 * it as an auto-match's would, and its form is a match body's: netting to zero is amount_and_date, else manual
 * with matched_amount the difference; its tolerance is the rule's date window.
 */
function ruleProposalProblem(model: WorkspaceModel, window: ModelWindow, proposal: any, context: Context): string | null {
  const rule = model.rules.find((each) => each.id === proposal.rule.id)
  if (rule === undefined || rule.fields.action !== 'propose' || rule.fields.name !== proposal.rule.name) return 'names no propose rule of the workspace'
  if (proposal.date_tolerance_days !== rule.fields.conditions.date_window_days) return `tolerance ${proposal.date_tolerance_days}, the rule's window ${rule.fields.conditions.date_window_days}`
  const lines = (proposal.statement_lines as string[]).map((id) => Number(id.slice(1)) - 1)
  const entries = (proposal.entries as string[]).map((id) => model.entry(id, context.visibility) ?? -1)
  if (entries.includes(-1) || lines.some((line) => !(line >= 0 && line < window.lines.length))) return 'an unknown line or entry'
  const problem = ruleMatchProblem(model, window, rule, lines, entries)
  if (problem !== null) return problem
  const difference = lines.reduce((sum, line) => sum + window.lines[line].amount, 0) - entries.reduce((sum, entry) => sum + model.entryAmount(window, entry), 0)
  if (proposal.matched_amount !== difference) return `matched_amount ${proposal.matched_amount}, the difference ${difference}`
  return proposal.strategy === (difference === 0 ? 'amount_and_date' : 'manual') ? null : `strategy ${proposal.strategy} for a difference of ${difference}`
}

/**
 * docs/API.md, Matching help: proposals, dry runs, batches: proposals are not predicted (their choice and score are the matcher's), but each must be a
 * match the model would accept: unmatched lines of the window and entries inside it, amounts equal, a 1:1
 * pair within the date tolerance, no line or entry in two proposals. A terminal window has none.
 */
function expectProposals(model: WorkspaceModel, request: Extract<ReadRequest, { type: 'proposals' }>, context: Context): Expectation {
  const windowIndex = model.window(request.window, context.visibility)
  if (windowIndex === undefined) return rejected('not_found')
  const window = model.windows[windowIndex]
  return {
    ok: true,
    status: 200,
    check: (body) => {
      if (!Array.isArray(body.data)) return 'proposals answered without data'
      if (isTerminal(window) && body.data.length > 0) return `a ${window.state} window has ${body.data.length} proposals`
      const trial = model.clone()
      for (const [index, proposal] of body.data.entries()) {
        const problem = proposal.rule === null || proposal.rule === undefined ? searchProposalProblem(proposal, request) : ruleProposalProblem(trial, trial.windows[windowIndex], proposal, context)
        if (problem !== null) return `proposal ${index} ${JSON.stringify(proposal)}: ${problem}`
        const item = { type: 'match.create' as const, window: window.id, statement_lines: proposal.statement_lines, entries: proposal.entries, strategy: proposal.strategy, reason: proposal.rule?.name ?? null, date_tolerance_days: proposal.date_tolerance_days }
        const expectation = trial.expect(item, context)
        // Committed on the copy: a line or entry proposed twice is then refused as already matched.
        if (!expectation.ok) return `proposal ${index} ${JSON.stringify(proposal)} would be refused: ${expectation.code}`
        expectation.commit({ id: `?${index}` })
      }
      return null
    },
    commit: () => undefined,
  }
}

