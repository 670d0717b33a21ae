/**
 * @module Simulation: the auditor, an independent model of one workspace written from docs/API.md
 * (not from src/ledger). For each request it predicts the answer (a rejection code, or an
 * acceptance with the figures it must carry); the simulator compares every reply with the prediction.
 * Ids are opaque: the model learns them from accepted replies and then refers to objects by them.
 */

import { Temporal } from 'temporal-polyfill'
import type { StatementInput, WorkspaceCommand } from '../../src/ledger/commands.ts'
import type { ModelRule } from './auditor-rules.ts'
import { approvalsOff, type ModelApproval, type ModelApprovalSettings } from './auditor-approvals.ts'

/** A request as a client sends it: a workspace command without the envelope the edge stamps on it. */
export type Request = WorkspaceCommand extends infer C ? (C extends WorkspaceCommand ? Omit<C, 'at_ms' | 'key_id' | 'visibility' | 'idempotency'> : never) : never

export interface Context {
  readonly atMs: number
  readonly keyId: string
  /** Visible account patterns (`name` or `prefix:*`), null for every account. */
  readonly visibility: readonly string[] | null
}

/** What the model expects: a rejection code, or an acceptance whose body `check` approves (then `commit` learns from it). */
export type Expectation =
  | {
    readonly ok: false
    readonly code: string
    /** A refusal that still changes state: only an approve whose action fails now (the approval becomes failed; docs/API.md, Approvals). */
    readonly changes?: () => void
  }
  | {
    readonly ok: true
    readonly status: number
    readonly check: (body: any) => string | null
    readonly commit: (body: any) => void
    /** A request already carried out (a statement imported again): answered with Replayed, nothing logged, no answer stored for its key. */
    readonly replayed?: true
  }

export interface ModelAccount { id: string; name: string; readonly externalId: string | null; readonly postings: { readonly atMs: number; readonly amount: number }[] }
export interface ModelEntry { readonly id: string; readonly atMs: number; readonly lines: readonly { readonly account: number; readonly amount: number }[] }
export interface ModelLine { readonly amount: number; readonly date: string; readonly reference: string | null; match: number }
export interface ModelMatch { readonly id: string; readonly window: number; readonly lines: readonly number[]; readonly entries: readonly number[]; readonly amount: number; readonly writeOff: boolean; reversed: boolean }
export interface ModelWindow {
  readonly id: string
  readonly accounts: readonly number[]
  readonly from: string
  readonly to: string
  readonly timeZone: string
  readonly startMs: number
  readonly endMs: number
  readonly claimed: number
  readonly tolerance: number
  /** An imported statement's ref and content fingerprint (null for a window opened by hand). */
  readonly statementRef: string | null
  readonly fingerprint: string | null
  state: 'open' | 'balanced' | 'closed' | 'abandoned'
  /** Live derived movement, kept up to date as postings land in the period (frozen once terminal). */
  derived: number
  matchedTotal: number
  activeMatches: number
  activeWriteOffs: number
  readonly lines: ModelLine[]
  /** entry index → match index, for active matches of this window. */
  readonly matchedEntries: Map<number, number>
  frozenResidual: number | null
  /** Coverage only: whether the window was ever balanced. */
  everBalanced: boolean
  /** An imported window's figures as its import answered them (but its accounts' names): what importing it again answers. */
  readonly importedAs?: Readonly<Record<string, unknown>>
}

const dayMs = 24 * 60 * 60 * 1000
/** docs/API.md, Retries and Idempotency-Key: stored answers survive at least 24 h. */
export const idempotencyTtlMs = dayMs

export function isVisibleTo(visibility: readonly string[] | null, name: string): boolean {
  if (visibility === null) return true
  return visibility.some((pattern) => (pattern.endsWith(':*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name))
}

/** Local midnight of a date in a zone, through Temporal (an implementation independent of src/ledger/calendar.ts). */
export function midnightMs(date: string, timeZone: string): number {
  return Temporal.PlainDate.from(date).toZonedDateTime({ timeZone }).epochMilliseconds
}

export function localDate(atMs: number, timeZone: string): string {
  return Temporal.Instant.fromEpochMilliseconds(atMs).toZonedDateTimeISO(timeZone).toPlainDate().toString()
}

/** Whole days between two dates (YYYY-MM-DD), either order. */
export function daysApart(a: string, b: string): number {
  return Math.abs(Temporal.PlainDate.from(a).until(Temporal.PlainDate.from(b), { largestUnit: 'days' }).days)
}

export function dayAfter(date: string): string {
  return Temporal.PlainDate.from(date).add({ days: 1 }).toString()
}

export const rejected = (code: string): Expectation => ({ ok: false, code })

function mismatch(what: string, expected: unknown, actual: unknown): string | null {
  return JSON.stringify(expected) === JSON.stringify(actual) ? null : `${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`
}

export function firstProblem(...problems: (string | null)[]): string | null {
  return problems.find((problem) => problem !== null) ?? null
}

export function residualOf(window: ModelWindow): number {
  return window.frozenResidual ?? window.claimed - window.derived - window.matchedTotal
}

/** docs/API.md, Reconciliation windows: balanced exactly when the residual is 0 and at least one match is active. */
export function liveState(window: ModelWindow): 'open' | 'balanced' {
  return residualOf(window) === 0 && window.activeMatches > 0 ? 'balanced' : 'open'
}

function reevaluate(window: ModelWindow): void {
  window.state = liveState(window)
  if (window.state === 'balanced') window.everBalanced = true
}

export function isTerminal(window: ModelWindow): boolean {
  return window.state === 'closed' || window.state === 'abandoned'
}

/** The figures every window object carries, as the model has them. */
export function windowFigures(model: WorkspaceModel, window: ModelWindow): Record<string, unknown> {
  return {
    id: window.id,
    accounts: window.accounts.map((index) => model.accounts[index].name),
    window: { from: window.from, to: window.to },
    claimed_movement: window.claimed,
    derived_movement: window.derived,
    residual: residualOf(window),
    matched_count: window.activeMatches,
    tolerance: window.tolerance,
    state: window.state,
    lines_count: window.lines.length,
    unmatched_lines_count: window.lines.filter((line) => line.match < 0).length,
  }
}

export function checkWindowBody(model: WorkspaceModel, window: ModelWindow, body: any, expected = windowFigures(model, window)): string | null {
  for (const [field, value] of Object.entries(expected)) {
    const problem = mismatch(`window ${window.id} ${field}`, value, body[field])
    if (problem !== null) return problem
  }
  return null
}

/** The model of one workspace: accounts, entries with their postings, windows, matches and stored answers. */
export class WorkspaceModel {
  readonly accounts: ModelAccount[] = []
  readonly entries: ModelEntry[] = []
  readonly windows: ModelWindow[] = []
  readonly matches: ModelMatch[] = []
  readonly idempotency = new Map<string, { readonly fingerprint: string; readonly status: number; readonly bodyText: string; readonly createdAtMs: number }>()
  /** Statements sent in imports (accepted or not): a client sends one again, as is or changed. */
  readonly statementsSent: StatementInput[] = []
  /** Live matching rules in creation order, and how many were deleted (auditor-rules.ts). */
  readonly rules: ModelRule[] = []
  rulesDeleted = 0
  /** The workspace's approvals setting (an admin changes it), and the approvals in creation order (auditor-approvals.ts). */
  approvalSettings: ModelApprovalSettings = approvalsOff
  readonly approvals: ModelApproval[] = []

  /** timeZone: the workspace's zone now (an admin may change it; a window keeps the zone it was opened in). */
  constructor(readonly id: string, public timeZone: string) {}

  /** A deep copy: a crash that loses a batch puts the copy taken before it back. */
  clone(): WorkspaceModel {
    const data = structuredClone({ accounts: this.accounts, entries: this.entries, windows: this.windows, matches: this.matches, idempotency: this.idempotency, statementsSent: this.statementsSent, rules: this.rules, rulesDeleted: this.rulesDeleted, approvalSettings: this.approvalSettings, approvals: this.approvals })
    return Object.assign(new WorkspaceModel(this.id, this.timeZone), data)
  }

  /** The model's incremental derived movement of every live window against a full recount (the model checks itself). */
  selfCheck(): string | null {
    for (const window of this.windows) {
      if (window.state === 'closed' || window.state === 'abandoned') continue
      const recount = this.movement(window.accounts, window.startMs, window.endMs)
      if (recount !== window.derived) return `model drift: window ${window.id} derived ${window.derived}, recount ${recount}`
    }
    return null
  }

  /** An account by name or id, only when visible (else undefined: unknown and invisible look the same). */
  account(reference: string, visibility: readonly string[] | null): number | undefined {
    const index = this.accounts.findIndex((account) => account.id === reference || account.name === reference)
    if (index < 0 || !isVisibleTo(visibility, this.accounts[index].name)) return undefined
    return index
  }

  /** An account by the bank's identifier, only when visible. */
  accountByExternalId(externalId: string, visibility: readonly string[] | null): number | undefined {
    const index = this.accounts.findIndex((account) => account.externalId === externalId)
    if (index < 0 || !isVisibleTo(visibility, this.accounts[index].name)) return undefined
    return index
  }

  entry(id: string, visibility: readonly string[] | null): number | undefined {
    const index = this.entries.findIndex((entry) => entry.id === id)
    if (index < 0) return undefined
    const visible = this.entries[index].lines.every((line) => isVisibleTo(visibility, this.accounts[line.account].name))
    return visible ? index : undefined
  }

  window(id: string, visibility: readonly string[] | null): number | undefined {
    const index = this.windows.findIndex((window) => window.id === id)
    if (index < 0) return undefined
    const visible = this.windows[index].accounts.every((account) => isVisibleTo(visibility, this.accounts[account].name))
    return visible ? index : undefined
  }

  balanceAt(account: number, atMs: number): number {
    return this.accounts[account].postings.reduce((sum, posting) => (posting.atMs <= atMs ? sum + posting.amount : sum), 0)
  }

  /** Σ of the window accounts' lines on entries effective in [startMs, endMs), by a scan of every entry. */
  movement(accounts: readonly number[], startMs: number, endMs: number): number {
    let total = 0
    for (const entry of this.entries) {
      if (entry.atMs < startMs || entry.atMs >= endMs) continue
      for (const line of entry.lines) if (accounts.includes(line.account)) total += line.amount
    }
    return total
  }

  /** An entry's amount for a window: the sum of its lines on the window's accounts (docs/API.md, Reconciliation windows). */
  entryAmount(window: ModelWindow, entry: number): number {
    return this.entries[entry].lines.reduce((sum, line) => (window.accounts.includes(line.account) ? sum + line.amount : sum), 0)
  }

  expect(request: Request, context: Context): Expectation {
    switch (request.type) {
      case 'account.create': return this.#accountCreate(request, context)
      case 'account.update': return this.#accountUpdate(request, context)
      case 'entry.post': return this.#entryPost(request, context)
      case 'window.open': return this.#windowOpen(request, context)
      case 'window.lines.add': return this.#linesAdd(request, context)
      case 'match.create': return this.#matchCreate(request, context)
      case 'match.reverse': return this.#matchReverse(request, context)
      case 'window.transition': return this.#transition(request, context)
      default: throw new Error(`the model does not cover ${request.type}`)
    }
  }

  #accountCreate(request: Extract<Request, { type: 'account.create' }>, context: Context): Expectation {
    if (!isVisibleTo(context.visibility, request.name)) return rejected('scope_missing')
    if (this.accounts.some((account) => account.name === request.name)) return rejected('account_exists')
    const externalId = request.external_id ?? null
    if (externalId !== null && this.accounts.some((account) => account.externalId === externalId)) return rejected('account_exists')
    return {
      ok: true,
      status: 201,
      check: (body) => firstProblem(mismatch('account name', request.name, body.name), mismatch('account tags', request.tags, body.tags), mismatch('account external_id', externalId, body.external_id)),
      commit: (body) => { this.accounts.push({ id: body.id, name: request.name, externalId, postings: [] }) },
    }
  }

  #accountUpdate(request: Extract<Request, { type: 'account.update' }>, context: Context): Expectation {
    const index = this.account(request.account, context.visibility)
    if (index === undefined) return rejected('not_found')
    const account = this.accounts[index]
    const name = request.name ?? account.name
    if (name !== account.name) {
      if (!isVisibleTo(context.visibility, name)) return rejected('scope_missing')
      if (this.accounts.some((other) => other.name === name)) return rejected('account_exists')
    }
    return {
      ok: true,
      status: 200,
      check: (body) => firstProblem(mismatch('account id', account.id, body.id), mismatch('account name', name, body.name)),
      commit: () => { account.name = name },
    }
  }

  #entryPost(request: Extract<Request, { type: 'entry.post' }>, context: Context): Expectation {
    const accounts = request.lines.map((line) => this.account(line.account, context.visibility))
    if (accounts.includes(undefined)) return rejected('account_unknown')
    // Rules 2 (what the edge stamps today): an entry moves money between accounts.
    if ((request.rules ?? 1) >= 2 && new Set(accounts).size === 1) return rejected('request_invalid')
    if (request.lines.reduce((sum, line) => sum + line.amount, 0) !== 0) return rejected('entry_unbalanced')
    const atMs = request.effective_at_ms ?? context.atMs
    const lines = request.lines.map((line, index) => ({ account: accounts[index]!, amount: line.amount }))
    return {
      ok: true,
      status: 201,
      check: (body) => firstProblem(
        mismatch('entry effective_at', new Date(atMs).toISOString(), body.effective_at),
        mismatch('entry lines', lines.map((line) => ({ account: this.accounts[line.account].name, amount: line.amount })), body.lines.map((line: any) => ({ account: line.account, amount: line.amount }))),
      ),
      commit: (body) => this.#post({ id: body.id, atMs, lines }),
    }
  }

  /** A posting lands: balances, and every live window whose period holds it moves (and may flip state). */
  #post(entry: ModelEntry): void {
    this.entries.push(entry)
    const index = this.entries.length - 1
    for (const line of entry.lines) this.accounts[line.account].postings.push({ atMs: entry.atMs, amount: line.amount })
    for (const window of this.windows) {
      if (isTerminal(window) || entry.atMs < window.startMs || entry.atMs >= window.endMs) continue
      window.derived += this.entryAmount(window, index)
      reevaluate(window)
    }
  }

  #windowOpen(request: Extract<Request, { type: 'window.open' }>, context: Context): Expectation {
    if (request.to < request.from || request.to > localDate(context.atMs, request.time_zone)) return rejected('window_invalid')
    const accounts = request.accounts.map((reference) => this.account(reference, context.visibility))
    if (accounts.includes(undefined)) return rejected('account_unknown')
    const startMs = midnightMs(request.from, request.time_zone)
    const endMs = midnightMs(dayAfter(request.to), request.time_zone)
    const overlap = this.windows.some((window) => !isTerminal(window) && window.startMs < endMs && startMs < window.endMs && window.accounts.some((account) => accounts.includes(account)))
    if (overlap) return rejected('window_overlap')
    const window: ModelWindow = {
      id: '', accounts: accounts as number[], from: request.from, to: request.to, timeZone: request.time_zone, startMs, endMs,
      claimed: request.claimed_movement, tolerance: request.tolerance, statementRef: null, fingerprint: null, state: 'open', derived: this.movement(accounts as number[], startMs, endMs),
      matchedTotal: 0, activeMatches: 0, activeWriteOffs: 0, lines: [], matchedEntries: new Map(), frozenResidual: null, everBalanced: false,
    }
    return {
      ok: true,
      status: 201,
      check: (body) => checkWindowBody(this, { ...window, id: body.id }, body),
      commit: (body) => { this.windows.push({ ...window, id: body.id }) },
    }
  }

  #linesAdd(request: Extract<Request, { type: 'window.lines.add' }>, context: Context): Expectation {
    const index = this.window(request.window, context.visibility)
    if (index === undefined) return rejected('not_found')
    const window = this.windows[index]
    if (isTerminal(window)) return rejected('recon_state_invalid')
    if (request.lines.some((line) => line.date < window.from || line.date > window.to)) return rejected('line_outside_window')
    const ids = request.lines.map((_, offset) => `l${window.lines.length + offset + 1}`)
    return {
      ok: true,
      status: 201,
      check: (body) => firstProblem(mismatch('lines_count', window.lines.length + request.lines.length, body.lines_count), mismatch('line ids', ids, body.lines.map((line: any) => line.id))),
      commit: () => { for (const line of request.lines) window.lines.push({ amount: line.amount, date: line.date, reference: line.reference ?? null, match: -1 }) },
    }
  }

  #matchCreate(request: Extract<Request, { type: 'match.create' }>, context: Context): Expectation {
    const windowIndex = this.window(request.window, context.visibility)
    if (windowIndex === undefined) return rejected('not_found')
    const window = this.windows[windowIndex]
    if (isTerminal(window)) return rejected('recon_state_invalid')
    const lines = request.statement_lines.map((id) => (/^l[1-9][0-9]*$/.test(id) && Number(id.slice(1)) <= window.lines.length ? Number(id.slice(1)) - 1 : undefined))
    const entries = request.entries.map((id) => this.entry(id, context.visibility))
    if (lines.includes(undefined) || entries.includes(undefined)) return rejected('not_found')
    const lineIndexes = lines as number[]
    const entryIndexes = entries as number[]
    if (lineIndexes.some((line) => window.lines[line].match >= 0)) return rejected('line_already_matched')
    if (entryIndexes.some((entry) => window.matchedEntries.has(entry))) return rejected('entry_already_matched')
    const outside = entryIndexes.some((entry) => {
      const { atMs, lines: entryLines } = this.entries[entry]
      return atMs < window.startMs || atMs >= window.endMs || !entryLines.some((line) => window.accounts.includes(line.account))
    })
    if (outside) return rejected('entry_outside_window')
    const linesNet = lineIndexes.reduce((sum, line) => sum + window.lines[line].amount, 0)
    const entriesNet = entryIndexes.reduce((sum, entry) => sum + this.entryAmount(window, entry), 0)
    if (request.strategy === 'amount_and_date') {
      if (linesNet !== entriesNet) return rejected('match_amount_mismatch')
      const toleranceDays = request.date_tolerance_days ?? 0
      if (lineIndexes.length === 1 && entryIndexes.length === 1 && daysApart(window.lines[lineIndexes[0]].date, localDate(this.entries[entryIndexes[0]].atMs, window.timeZone)) > toleranceDays) return rejected('match_date_mismatch')
    }
    return this.#acceptMatch(window, windowIndex, lineIndexes, entryIndexes, linesNet - entriesNet, request.strategy === 'write_off')
  }

  #acceptMatch(window: ModelWindow, windowIndex: number, lines: number[], entries: number[], amount: number, writeOff: boolean): Expectation {
    const after = { ...window, matchedTotal: window.matchedTotal + amount, activeMatches: window.activeMatches + 1 }
    const state = liveState(after)
    return {
      ok: true,
      status: 200,
      check: (body) => firstProblem(
        mismatch('match reconciliation', window.id, body.reconciliation),
        mismatch('matched_amount', amount, body.matched_amount),
        mismatch('match residual', residualOf(after), body.residual),
        mismatch('match state', state, body.state),
      ),
      commit: (body) => {
        this.matches.push({ id: body.id, window: windowIndex, lines, entries, amount, writeOff, reversed: false })
        const matchIndex = this.matches.length - 1
        for (const line of lines) window.lines[line].match = matchIndex
        for (const entry of entries) window.matchedEntries.set(entry, matchIndex)
        window.matchedTotal += amount
        window.activeMatches += 1
        if (writeOff) window.activeWriteOffs += 1
        reevaluate(window)
      },
    }
  }

  #matchReverse(request: Extract<Request, { type: 'match.reverse' }>, context: Context): Expectation {
    const windowIndex = this.window(request.window, context.visibility)
    if (windowIndex === undefined) return rejected('not_found')
    const window = this.windows[windowIndex]
    if (isTerminal(window)) return rejected('recon_state_invalid')
    const match = this.matches.find((each) => each.id === request.match && each.window === windowIndex)
    if (match === undefined) return rejected('not_found')
    if (match.reversed) return rejected('match_already_reversed')
    const after = { ...window, matchedTotal: window.matchedTotal - match.amount, activeMatches: window.activeMatches - 1 }
    return {
      ok: true,
      status: 200,
      check: (body) => firstProblem(
        mismatch('reversed match id', match.id, body.id),
        mismatch('unmatch residual', residualOf(after), body.residual),
        mismatch('unmatch state', liveState(after), body.state),
        body.reversed_at === null ? 'reversed_at is null after an unmatch' : null,
      ),
      commit: () => {
        match.reversed = true
        for (const line of match.lines) window.lines[line].match = -1
        for (const entry of match.entries) window.matchedEntries.delete(entry)
        window.matchedTotal -= match.amount
        window.activeMatches -= 1
        if (match.writeOff) window.activeWriteOffs -= 1
        reevaluate(window)
      },
    }
  }

  #transition(request: Extract<Request, { type: 'window.transition' }>, context: Context): Expectation {
    const index = this.window(request.window, context.visibility)
    if (index === undefined) return rejected('not_found')
    const window = this.windows[index]
    if (isTerminal(window)) return rejected('recon_state_invalid')
    const reason = request.reason ?? ''
    const residual = residualOf(window)
    if (request.state === 'closed') {
      const allowed = window.state === 'balanced' || (Math.abs(residual) <= window.tolerance && (reason !== '' || window.activeWriteOffs > 0))
      if (!allowed) return rejected('recon_state_invalid')
    } else if (request.state === 'abandoned') {
      if (reason === '') return rejected('request_invalid')
    } else {
      return rejected('recon_state_invalid')
    }
    const to = request.state as 'closed' | 'abandoned'
    return {
      ok: true,
      status: 200,
      check: (body) => checkWindowBody(this, { ...window, state: to, frozenResidual: residual }, body),
      commit: () => {
        window.state = to
        window.frozenResidual = residual
      },
    }
  }
}
