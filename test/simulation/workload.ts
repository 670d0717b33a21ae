/**
 * @module Simulation: the random requests of the clients, drawn from a seeded PRNG and shaped by the
 * auditor's model (so windows get lines that can match, residuals that can reach zero) with a share of
 * requests that must be refused: unknown accounts and ids, unbalanced entries, overlaps, future and
 * inverted windows, lines outside the window, taken lines and entries, mismatches, illegal transitions.
 * Every request passes the edge's schema: the simulation drives the actor, behind the schema stage.
 */

import { dayAfter, localDate, residualOf, type ModelWindow, type Request, type WorkspaceModel } from './auditor.ts'
import type { SimRequest } from './auditor-bulk.ts'
import { pendingOf } from './auditor-approvals.ts'
import type { Prng } from './prng.ts'
import { entryBatch, matchBatch, proposalsRead, statementsImport } from './workload-bulk.ts'
import { approvalDecide, autoMatch, autoMatchDryRun, lineReference, ruleCreate, ruleDelete, ruleUpdate } from './workload-rules.ts'

export interface Client {
  readonly name: string
  readonly workspace: string
  /** Changes when an admin rotates the client's key. */
  keyId: string
  readonly visibility: readonly string[] | null
  /** Keyed requests this client sent: a retry draws from them (reads are never keyed). */
  readonly sent: { readonly key: string; readonly request: Request }[]
  keysIssued: number
}

const groups = ['assets', 'income', 'expenses', 'liabilities'] as const
const leaves = ['bank', 'cash', 'card', 'fees', 'sales', 'rent', 'loan', 'fx'] as const
const dayMs = 86_400_000

const requestWeights = {
  'account.create': 4, 'account.update': 1, 'entry.post': 30, 'window.open': 6, 'window.lines.add': 9,
  'match.create': 16, 'match.reverse': 4, 'window.transition': 4,
  'entry.batch': 5, 'match.batch': 4, 'match.batch.dry_run': 2, 'statements.import': 3, 'proposals': 3,
  'matching_rule.create': 1, 'matching_rule.update': 0.5, 'matching_rule.delete': 0.3, 'match.auto': 2, 'match.auto.dry_run': 1,
  'approval.decide': 0.5,
} as const

export function visibleAccounts(model: WorkspaceModel, client: Client): string[] {
  const visible = model.accounts.filter((account) => client.visibility === null || model.account(account.name, client.visibility) !== undefined)
  return visible.map((account) => account.name)
}

/** A date within the last `days` days of the workspace's today, as YYYY-MM-DD. */
export function recentDate(prng: Prng, atMs: number, timeZone: string, days: number): string {
  return localDate(atMs - prng.int(0, days) * dayMs, timeZone)
}

function liveWindows(model: WorkspaceModel, client: Client): ModelWindow[] {
  return model.windows.filter((window) => (window.state === 'open' || window.state === 'balanced') && model.window(window.id, client.visibility) !== undefined)
}

/** Mostly a live window the client sees; now and then a terminal one, another's, or an id that does not exist. */
export function pickWindow(prng: Prng, model: WorkspaceModel, client: Client): ModelWindow | string {
  const live = liveWindows(model, client)
  if (live.length > 0 && prng.chance(0.85)) return prng.pick(live)
  if (model.windows.length > 0 && prng.chance(0.8)) return prng.pick(model.windows)
  return prng.chance(0.5) ? 'rec_nope' : `${model.windows[0]?.id ?? 'rec_x'}zz`
}

export function nextRequest(prng: Prng, model: WorkspaceModel, client: Client, atMs: number): SimRequest {
  // A pending approval is decided soon, as a second person works through the queue.
  if (pendingOf(model).length > 0 && prng.chance(0.05)) return approvalDecide(prng, model)
  const kind = model.accounts.length < 3 ? 'account.create' : prng.weighted(requestWeights)
  switch (kind) {
    case 'account.create': return accountCreate(prng, client)
    case 'account.update': return accountUpdate(prng, model, client)
    case 'entry.post': return entryPost(prng, model, client, atMs)
    case 'window.open': return windowOpen(prng, model, client, atMs)
    case 'window.lines.add': return linesAdd(prng, model, client)
    case 'match.create': return matchCreate(prng, model, client)
    case 'match.reverse': return matchReverse(prng, model, client)
    case 'window.transition': return transition(prng, model, client)
    case 'entry.batch': return entryBatch(prng, model, client, atMs)
    case 'match.batch': return matchBatch(prng, model, client)
    case 'match.batch.dry_run': return { ...matchBatch(prng, model, client), type: 'match.batch.dry_run' }
    case 'statements.import': return statementsImport(prng, model, client, atMs)
    case 'proposals': return proposalsRead(prng, model, client)
    case 'matching_rule.create': return ruleCreate(prng, model)
    case 'approval.decide': return approvalDecide(prng, model)
    case 'matching_rule.update': return ruleUpdate(prng, model)
    case 'matching_rule.delete': return ruleDelete(prng, model)
    case 'match.auto': return autoMatch(prng, model, client)
    case 'match.auto.dry_run': return autoMatchDryRun(prng, model, client)
  }
}

function accountCreate(prng: Prng, client: Client): Request {
  const group = client.visibility !== null && prng.chance(0.8) ? prng.pick(['assets', 'income']) : prng.pick(groups)
  const name = `${group}:${prng.pick(leaves)}`
  // The bank's identifier, which statement files name the account by; now and then one already taken.
  const externalId = prng.chance(0.5) ? `IBAN-${name}-${prng.int(0, prng.chance(0.9) ? 99 : 2)}` : null
  return { type: 'account.create', name, tags: prng.chance(0.3) ? ['sim'] : [], ...(externalId === null ? {} : { external_id: externalId }) }
}

function accountUpdate(prng: Prng, model: WorkspaceModel, client: Client): Request {
  const account = prng.chance(0.9) && model.accounts.length > 0 ? prng.pick(model.accounts) : { id: 'acc_nope', name: 'assets:nope' }
  const reference = prng.chance(0.5) ? account.id : account.name
  if (prng.chance(0.5)) return { type: 'account.update', account: reference, tags: [prng.pick(['a', 'b', 'c'])] }
  const group = account.name.split(':')[0]
  return { type: 'account.update', account: reference, name: `${prng.chance(0.9) ? group : prng.pick(groups)}:${prng.pick(leaves)}${prng.int(0, 3)}` }
}

/** Effective times: now, back-dated by days, or right at a local midnight (the window boundary) ± 1 ms. */
function effectiveAtMs(prng: Prng, model: WorkspaceModel, atMs: number): number | null {
  const roll = prng.next()
  if (roll < 0.35) return null
  if (roll < 0.8) return atMs - prng.int(0, 40 * dayMs)
  const window = model.windows.length > 0 ? prng.pick(model.windows) : null
  if (window === null) return atMs - prng.int(0, 40) * dayMs
  const edge = prng.pick([window.startMs, window.endMs])
  return Math.min(atMs, edge + prng.pick([-1, 0, 1]))
}

export function entryPost(prng: Prng, model: WorkspaceModel, client: Client, atMs: number): Extract<Request, { type: 'entry.post' }> {
  const names = visibleAccounts(model, client)
  const count = prng.int(2, 3)
  const lines = prng.sample(names, count).map((account) => ({ account, amount: prng.int(1, 500) * (prng.chance(0.5) ? 1 : -1) }))
  while (lines.length < 2) lines.push({ account: prng.pick(names.length > 0 ? names : ['assets:ghost']), amount: prng.int(1, 500) })
  // Balance it on the last line; amounts stay non-zero (0 fails the schema): a zero head sum doubles the first line.
  if (lines.slice(0, -1).reduce((sum, line) => sum + line.amount, 0) === 0) lines[0] = { account: lines[0].account, amount: lines[0].amount * 2 }
  const head = lines.slice(0, -1).reduce((sum, line) => sum + line.amount, 0)
  lines[lines.length - 1] = { account: lines[lines.length - 1].account, amount: -head }
  if (prng.chance(0.05)) lines[0] = { account: lines[0].account, amount: lines[0].amount + prng.pick([1, -1]) || 2 }
  if (prng.chance(0.04)) lines[1] = { account: prng.pick(['assets:ghost', 'acc_nope', 'expenses:rent']), amount: lines[1].amount }
  return { type: 'entry.post', lines, effective_at_ms: effectiveAtMs(prng, model, atMs), description: prng.chance(0.2) ? 'sim' : null, metadata: null }
}

function windowOpen(prng: Prng, model: WorkspaceModel, client: Client, atMs: number): Request {
  const names = visibleAccounts(model, client)
  const accounts = prng.sample(names, prng.chance(0.75) ? 1 : 2)
  if (accounts.length === 0 || prng.chance(0.04)) accounts.push('assets:ghost')
  const from = recentDate(prng, atMs, model.timeZone, 45)
  let to = from
  for (let days = prng.int(0, 12); days > 0; days--) to = dayAfter(to)
  const today = localDate(atMs, model.timeZone)
  if (to > today) to = today
  if (prng.chance(0.03)) to = dayAfter(today)
  const [windowFrom, windowTo] = prng.chance(0.03) && from !== to ? [to, from] : [from, to]
  const known = accounts.flatMap((reference) => { const index = model.account(reference, client.visibility); return index === undefined ? [] : [index] })
  const derived = windowFrom <= windowTo ? model.movement(known, Date.parse(`${windowFrom}T00:00:00Z`) - dayMs, Date.parse(`${windowTo}T00:00:00Z`) + 2 * dayMs) : 0
  const tolerance = prng.chance(0.7) ? 0 : prng.int(1, 50)
  // Now and then a claim off by less than the tolerance: a residual that a close with a reason may leave.
  const claimed = tolerance > 0 && prng.chance(0.3) ? derived + prng.int(-tolerance, tolerance) : prng.chance(0.5) ? derived : derived + prng.int(-300, 300)
  return {
    type: 'window.open', label: `w${model.windows.length + 1}`, accounts, from: windowFrom, to: windowTo, claimed_movement: claimed,
    statement_ref: null, tolerance, time_zone: model.timeZone,
  }
}

/** Lines a match can use: copies of entry amounts in the period, the residual, or noise; some dated outside. */
function linesAdd(prng: Prng, model: WorkspaceModel, client: Client): Request {
  const window = pickWindow(prng, model, client)
  if (typeof window === 'string') return { type: 'window.lines.add', window, lines: [{ amount: 1, date: '2026-01-01', reference: null, description: null }] }
  const inPeriod = model.entries.map((_, index) => index).filter((index) => model.entries[index].atMs >= window.startMs && model.entries[index].atMs < window.endMs)
  const lines = Array.from({ length: prng.int(1, 3) }, () => {
    const roll = prng.next()
    let amount = prng.int(-400, 400) || 7
    let date = window.from
    if (roll < 0.55 && inPeriod.length > 0) {
      const entry = prng.pick(inPeriod)
      amount = model.entryAmount(window, entry) || 3
      // Now and then the statement books it on another day of the period: a one-to-one date mismatch.
      date = prng.chance(0.15) ? prng.pick([window.from, window.to]) : localDate(model.entries[entry].atMs, window.timeZone)
    } else if (roll < 0.8 && window.frozenResidual === null) {
      amount = residualOf(window) || 5
    }
    if (prng.chance(0.03)) date = dayAfter(window.to)
    return { amount, date, reference: lineReference(prng), description: null }
  })
  return { type: 'window.lines.add', window: window.id, lines }
}

export function matchCreate(prng: Prng, model: WorkspaceModel, client: Client, inWindow?: ModelWindow | string): Extract<Request, { type: 'match.create' }> {
  const window = inWindow ?? pickWindow(prng, model, client)
  if (typeof window === 'string') return { type: 'match.create', window, statement_lines: ['l1'], entries: ['ent_nope'], strategy: 'manual', reason: null }
  const free = window.lines.map((line, index) => ({ line, index })).filter(({ line }) => line.match < 0 || prng.chance(0.05))
  const lineIds = prng.sample(free, prng.chance(0.8) ? 1 : 2).map(({ index }) => `l${index + 1}`)
  if (lineIds.length === 0 || prng.chance(0.03)) lineIds.push(`l${window.lines.length + 1}`)
  const strategy = prng.weighted({ amount_and_date: 5, manual: 2, write_off: 3 })
  if (strategy === 'write_off') {
    // Mostly the line that stands for the residual: writing it off balances the window.
    const clearing = free.find(({ line }) => line.match < 0 && window.frozenResidual === null && line.amount === residualOf(window))
    const writtenOff = clearing !== undefined && prng.chance(0.7) ? [`l${clearing.index + 1}`] : lineIds
    return { type: 'match.create', window: window.id, statement_lines: writtenOff, entries: [], strategy, reason: 'sim write-off' }
  }
  const wanted = lineIds.reduce((sum, id) => sum + (window.lines[Number(id.slice(1)) - 1]?.amount ?? 0), 0)
  const candidates = model.entries.map((entry, index) => ({ entry, index })).filter(({ index }) => model.entryAmount(window, index) !== 0 || prng.chance(0.05))
  const exact = candidates.filter(({ index }) => model.entryAmount(window, index) === wanted && (!window.matchedEntries.has(index) || prng.chance(0.3)))
  const chosen = exact.length > 0 && prng.chance(0.8) ? prng.pick(exact) : candidates.length > 0 ? prng.pick(candidates) : null
  const entries = chosen === null ? ['ent_nope'] : [chosen.entry.id]
  return { type: 'match.create', window: window.id, statement_lines: lineIds, entries, strategy, reason: null }
}

function matchReverse(prng: Prng, model: WorkspaceModel, client: Client): Request {
  const window = pickWindow(prng, model, client)
  if (typeof window === 'string') return { type: 'match.reverse', window, match: 'mat_nope' }
  const windowIndex = model.windows.indexOf(window)
  const own = model.matches.filter((match) => match.window === windowIndex)
  const active = own.filter((match) => !match.reversed)
  const match = active.length > 0 && prng.chance(0.85) ? prng.pick(active) : own.length > 0 && prng.chance(0.7) ? prng.pick(own) : model.matches.length > 0 ? prng.pick(model.matches) : { id: 'mat_nope' }
  return { type: 'match.reverse', window: window.id, match: match.id }
}

function transition(prng: Prng, model: WorkspaceModel, client: Client): Request {
  const live = liveWindows(model, client)
  const balanced = live.filter((each) => each.state === 'balanced')
  // A residual within the tolerance can be closed with a reason: with approvals on, such a close waits for a second key.
  const tolerated = live.filter((each) => residualOf(each) !== 0 && Math.abs(residualOf(each)) <= each.tolerance)
  const window = tolerated.length > 0 && prng.chance(0.3) ? prng.pick(tolerated) : balanced.length > 0 && prng.chance(0.5) ? prng.pick(balanced) : pickWindow(prng, model, client)
  const id = typeof window === 'string' ? window : window.id
  const roll = prng.next()
  if (roll < 0.6) return { type: 'window.transition', window: id, state: 'closed', reason: prng.chance(0.4) ? 'rounding' : null }
  if (roll < 0.9) return { type: 'window.transition', window: id, state: 'abandoned', reason: 'statement replaced' }
  return { type: 'window.transition', window: id, state: prng.pick(['open', 'balanced']), reason: null }
}

/** A request with one field changed: the same Idempotency-Key with it must be a conflict. */
export function altered(request: Request): Request {
  switch (request.type) {
    case 'entry.post': return { ...request, description: `${request.description ?? ''}!` }
    case 'window.open': return { ...request, label: `${request.label}!` }
    case 'account.create': return { ...request, tags: [...request.tags, 'changed'] }
    case 'entry.batch': return { ...request, atomic: !request.atomic }
    case 'match.batch': return { ...request, matches: request.matches.map((item, index) => (index === 0 ? { ...item, reason: `${item.reason ?? 'r'}?` } : item)) }
    case 'approval.decide': return { ...request, decision: 'reject', reason: `${request.reason ?? 'changed'}?` }
    case 'statements.import': return { ...request, statements: request.statements.map((statement, index) => (index === 0 ? { ...statement, label: `${statement.label}!` } : statement)) }
    default: return { ...request, type: request.type, ...(('reason' in request) ? { reason: `${request.reason ?? ''}?` } : {}) } as Request
  }
}
