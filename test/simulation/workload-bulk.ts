/**
 * @module Simulation: the random requests that carry many items (bulk postings, match batches and their
 * dry runs, statement imports) and the proposals read, with their share of refusals: a batch with one bad
 * item (atomic: nothing stored), a repeated line, a statement of an unknown account, in another currency,
 * overlapping a live window, sent again as is (answered, not imported again) or changed (a conflict).
 */

import { reject } from '../../src/errors.ts'
import { entryRulesVersion, type StatementInput } from '../../src/ledger/commands.ts'
import { dayAfter, localDate, type Request, type WorkspaceModel } from './auditor.ts'
import type { ReadRequest } from './auditor-bulk.ts'
import type { Prng } from './prng.ts'
import { entryPost, matchCreate, pickWindow, recentDate, type Client } from './workload.ts'

const dayMs = 86_400_000

/** 1..5 postings, all or nothing or each on its own; per item, now and then one the edge refused by its shape. */
export function entryBatch(prng: Prng, model: WorkspaceModel, client: Client, atMs: number): Request {
  const atomic = prng.chance(0.5)
  const entries = Array.from({ length: prng.int(1, 5) }, () => {
    if (!atomic && prng.chance(0.08)) return { refused: reject('request_invalid', 'sim: an item the schema refused', [{ path: '/lines', message: 'sim' }]) }
    const { lines, effective_at_ms, description, metadata } = entryPost(prng, model, client, atMs)
    return { lines, effective_at_ms, description, metadata }
  })
  return { type: 'entry.batch', atomic, entries, rules: entryRulesVersion }
}

/**
 * 1..4 matches of one window, drawn as single matches are. Mostly only those that the model says would
 * be attached one after another (so batches are accepted); else as drawn, so some collide (a line or
 * entry twice) or fail and take the batch with them; now and then a misshapen one.
 */
export function matchBatch(prng: Prng, model: WorkspaceModel, client: Client): Extract<Request, { type: 'match.batch' }> {
  const window = pickWindow(prng, model, client)
  const windowId = typeof window === 'string' ? window : window.id
  const drawn = Array.from({ length: prng.int(1, 5) }, () => {
    const { statement_lines, entries, strategy, reason } = matchCreate(prng, model, client, window)
    const tolerance = strategy === 'amount_and_date' && prng.chance(0.3) ? { date_tolerance_days: prng.int(0, 3) } : {}
    return { statement_lines, entries, strategy, reason, ...tolerance }
  })
  let matches = drawn.slice(0, 4)
  if (prng.chance(0.7)) {
    const trial = model.clone()
    const context = { atMs: 0, keyId: '', visibility: client.visibility }
    const fitting = drawn.filter((item, index) => {
      const expectation = trial.expect({ type: 'match.create', window: windowId, ...item }, context)
      if (expectation.ok) expectation.commit({ id: `?${index}` })
      return expectation.ok
    })
    if (fitting.length > 0) matches = fitting
  }
  if (prng.chance(0.03)) matches.push({ statement_lines: ['l1'], entries: ['ent_nope'], strategy: 'write_off', reason: 'misshapen' })
  return { type: 'match.batch', window: windowId, matches }
}

export function proposalsRead(prng: Prng, model: WorkspaceModel, client: Client): ReadRequest {
  const window = pickWindow(prng, model, client)
  return { type: 'proposals', window: typeof window === 'string' ? window : window.id, date_tolerance_days: prng.int(0, 3), max_group: prng.int(2, 4), limit: 50 }
}

/** A file of one or two statements: new ones, or one sent before (as is, or changed: same ref, other content). */
export function statementsImport(prng: Prng, model: WorkspaceModel, client: Client, atMs: number): Request {
  const statements = Array.from({ length: prng.chance(0.75) ? 1 : 2 }, () => {
    if (model.statementsSent.length > 0 && prng.chance(0.25)) {
      const earlier = prng.pick(model.statementsSent)
      return prng.chance(0.75) ? earlier : withFingerprint({ ...earlier, claimed_movement: earlier.claimed_movement + 1 })
    }
    return newStatement(prng, model, client, atMs)
  })
  for (const statement of statements) if (!model.statementsSent.includes(statement)) model.statementsSent.push(statement)
  return { type: 'statements.import', statements, time_zone: model.timeZone }
}

/** The edge hashes a statement's content (not its label); any text that differs when the content does will do here. */
function withFingerprint(statement: Omit<StatementInput, 'fingerprint'>): StatementInput {
  const { label, ...content } = statement
  void label
  return { ...statement, fingerprint: JSON.stringify({ ...content, fingerprint: undefined }) }
}

function newStatement(prng: Prng, model: WorkspaceModel, client: Client, atMs: number): StatementInput {
  const identified = model.accounts.map((account, index) => ({ account, index })).filter(({ account }) => account.externalId !== null && model.account(account.id, client.visibility) !== undefined)
  const chosen = identified.length > 0 && prng.chance(0.95) ? prng.pick(identified) : null
  const from = recentDate(prng, atMs, model.timeZone, 45)
  let to = from
  for (let days = prng.int(0, 10); days > 0; days--) to = dayAfter(to)
  const today = localDate(atMs, model.timeZone)
  if (to > today) to = today
  if (prng.chance(0.03)) to = dayAfter(today)
  const ref = `st${model.statementsSent.length + 1}`
  const lines = chosen === null ? [] : statementLines(prng, model, chosen.index, from, to)
  const derived = chosen === null ? 0 : model.movement([chosen.index], Date.parse(`${from}T00:00:00Z`) - dayMs, Date.parse(`${to}T00:00:00Z`) + 2 * dayMs)
  return withFingerprint({
    account: chosen?.account.externalId ?? 'IBAN-unknown', currency: prng.chance(0.04) ? 'EUR' : 'USD', statement_ref: ref, label: `statement ${ref}`,
    from, to, claimed_movement: prng.chance(0.6) ? derived : derived + prng.int(-200, 200), lines,
  })
}

/** Lines copying the amounts of entries on the account in the period (so proposals find pairs), or noise; a few dated outside. */
function statementLines(prng: Prng, model: WorkspaceModel, account: number, from: string, to: string): StatementInput['lines'] {
  const startMs = Date.parse(`${from}T00:00:00Z`)
  const endMs = Date.parse(`${dayAfter(to)}T00:00:00Z`)
  const inPeriod = model.entries.filter((entry) => entry.atMs >= startMs && entry.atMs < endMs && entry.lines.some((line) => line.account === account))
  return Array.from({ length: prng.int(0, 4) }, () => {
    const entry = inPeriod.length > 0 && prng.chance(0.7) ? prng.pick(inPeriod) : null
    const amount = entry === null ? prng.int(-400, 400) || 9 : entry.lines.reduce((sum, line) => (line.account === account ? sum + line.amount : sum), 0) || 4
    let date = entry === null ? from : localDate(entry.atMs, model.timeZone)
    if (prng.chance(0.04)) date = dayAfter(to)
    return { amount, date, reference: prng.chance(0.5) ? `ref-${prng.int(1, 999)}` : null, description: null }
  })
}
