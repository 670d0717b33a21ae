/**
 * @module Crash loop: the mixed load. Each writer owns one bank account of its workspace and the windows on it, so its
 * window operations never race another writer's; entries from everyone still move its windows' figures. Every
 * answer is recorded in the Ledger; the request in flight at the kill is remembered and retried after the restart.
 */

import type { Prng } from '../../simulation/prng.ts'
import { NoAnswer, send } from './client.ts'
import type { Exchange, Ledger } from './model.ts'

export type Kind = 'entry' | 'window' | 'lines' | 'match' | 'unmatch' | 'close' | 'abandon'

export interface Request {
  readonly kind: Kind
  readonly workspace: string
  readonly method: string
  readonly path: string
  readonly body?: any
  readonly idempotencyKey?: string
  readonly window?: string
  readonly match?: string
  /** The 2xx this request must get. */
  readonly expect: number
  /** A deliberately bad request: the refusal it must get. */
  readonly refusal?: { readonly status: number; readonly code: string }
}

export interface Workspace {
  readonly id: string
  readonly key: string
  /** Every account of the workspace; bank accounts `assets:bank-<writer>` first. */
  readonly accounts: readonly string[]
}

export interface FreeEntry { readonly id: string; readonly amount: number; readonly date: string }
export interface FreeLine { readonly id: string; readonly amount: number; readonly date: string }

/** A live window of a writer as the writer knows it, rebuilt from the server after every restart. */
export interface OwnedWindow {
  readonly id: string
  readonly from: string
  readonly to: string
  readonly lines: FreeLine[]
  readonly entries: FreeEntry[]
  readonly matches: { id: string; lines: FreeLine[]; entries: FreeEntry[] }[]
}

export interface Writer {
  readonly index: number
  readonly workspace: Workspace
  readonly bank: string
  readonly windows: OwnedWindow[]
}

const dayMs = 86_400_000
const liveWindowsMax = 3
const amountMax = 1_000_000
/** Large enough that a close from `open` always passes: the load wants successful closes, not 409s. */
const tolerance = 10_000_000_000_000

export function dateOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

function addDays(date: string, days: number): string {
  return dateOf(Date.parse(`${date}T00:00:00Z`) + days * dayMs)
}

/** Sends and records. Returns the exchange, or null when the server did not answer (it died). */
export async function perform(ledger: Ledger, baseUrl: string, round: number, request: Request, key: string, inFlight: Request[]): Promise<Exchange | null> {
  inFlight.push(request)
  let exchange: Exchange
  try {
    exchange = await send(baseUrl, key, request.method, request.path, request.body, request.idempotencyKey)
  } catch (error) {
    if (error instanceof NoAnswer) return null
    throw error
  }
  inFlight.splice(inFlight.indexOf(request), 1)
  record(ledger, round, request, exchange)
  return exchange
}

/** What an answer teaches: an acknowledged fact, an expected refusal, or something unexpected. */
export function record(ledger: Ledger, round: number, request: Request, exchange: Exchange): void {
  if (request.refusal !== undefined) {
    if (exchange.status === request.refusal.status && exchange.body?.error?.code === request.refusal.code) {
      if (request.kind === 'entry') ledger.refusedDescriptions.add(request.body.description)
      if (request.kind === 'window') ledger.refusedLabels.add(request.body.label)
      return
    }
    return ledger.noteUnexpected(`${request.method} ${request.path}: wanted ${request.refusal.status} ${request.refusal.code}, got ${exchange.status} ${exchange.text.slice(0, 200)}`)
  }
  if (exchange.status !== request.expect) {
    return ledger.noteUnexpected(`${request.method} ${request.path}: wanted ${request.expect}, got ${exchange.status} ${exchange.text.slice(0, 200)}`)
  }
  // The first answer a client gets for a write acknowledges it, even a replay: the retry after a
  // restart of a request that landed just before the kill is answered from the stored record.
  const scopedKey = request.idempotencyKey === undefined ? null : `${request.workspace} ${request.idempotencyKey}`
  const first = scopedKey === null ? !exchange.replayed : !ledger.keyedKeys.has(scopedKey)
  if (first) ledger.acknowledge(request.kind)
  if (scopedKey !== null && first) {
    ledger.keyedKeys.add(scopedKey)
    ledger.keyed.push({ workspace: request.workspace, method: request.method, path: request.path, body: request.body, idempotencyKey: request.idempotencyKey!, status: exchange.status, text: exchange.text, round })
  }
  learn(ledger, request, exchange)
}

function learn(ledger: Ledger, request: Request, exchange: Exchange): void {
  const body = exchange.body
  // An id handed out twice means an acknowledged write was lost and its id reused: never overwrite the first.
  const reused = (kind: string, known: object | undefined, text?: string) => {
    if (known !== undefined && (text === undefined || !('text' in known) || known.text !== text)) ledger.noteUnexpected(`${kind} id ${body.id} was handed out twice`)
    return known !== undefined
  }
  if (request.kind === 'entry' && !reused('entry', ledger.entries.get(body.id), exchange.text)) {
    ledger.entries.set(body.id, { workspace: request.workspace, description: body.description, text: exchange.text })
  }
  if (request.kind === 'window' && !exchange.replayed && reused('window', ledger.windows.get(body.id))) return
  if (request.kind === 'match' && !exchange.replayed && reused('match', ledger.matches.get(body.id))) return
  if (request.kind === 'window') {
    ledger.windows.set(body.id, { id: body.id, workspace: request.workspace, label: body.label, account: body.accounts[0], from: body.window.from, to: body.window.to, lines: new Map(), terminal: null })
  }
  if (request.kind === 'lines') {
    const window = ledger.windows.get(request.window!)
    for (const line of body.lines) window?.lines.set(line.id, { amount: line.amount, date: line.date })
  }
  if (request.kind === 'match') ledger.matches.set(body.id, { id: body.id, workspace: request.workspace, window: request.window!, matchedAmount: body.matched_amount, reversed: false })
  if (request.kind === 'unmatch') {
    const match = ledger.matches.get(request.match!)
    if (match !== undefined) match.reversed = true
  }
  if (request.kind === 'close' || request.kind === 'abandon') {
    const window = ledger.windows.get(request.window!)
    if (window !== undefined) window.terminal = { state: body.state, derived: body.derived_movement, residual: body.residual }
  }
}

export interface LoadContext {
  readonly ledger: Ledger
  readonly baseUrl: string
  readonly round: number
  readonly random: Prng
  /** Requests sent and not yet answered; what is left at the kill is retried after the restart. */
  readonly inFlight: Request[]
  readonly killed: () => boolean
  readonly deadlineMs: number
  readonly opsMax: number
}

/** One writer's loop: random operations until the kill, the deadline or opsMax. */
export async function runWriter(context: LoadContext, writer: Writer): Promise<void> {
  for (let op = 0; op < context.opsMax && !context.killed() && Date.now() < context.deadlineMs; op++) {
    const alive = await step(context, writer, op)
    if (!alive) return
  }
}

async function step(context: LoadContext, writer: Writer, op: number): Promise<boolean> {
  const roll = context.random.next()
  const tag = `r${context.round}-w${writer.workspace.id}${writer.index}-${op}`
  if (roll < 0.36) return postEntry(context, writer, tag)
  if (roll < 0.46) return reconcileChain(context, writer, tag)
  if (roll < 0.52) return openWindow(context, writer, tag, false)
  if (roll < 0.6) return addLines(context, writer, tag)
  if (roll < 0.67) return matchSome(context, writer, tag)
  if (roll < 0.72) return unmatchOne(context, writer)
  if (roll < 0.75) return finishWindow(context, writer, tag)
  if (roll < 0.87) return retryKeyed(context, writer)
  if (roll < 0.89) return postUnbalanced(context, writer, tag)
  if (roll < 0.9) return openWindow(context, writer, tag, true)
  return true
}

async function run(context: LoadContext, writer: Writer, request: Request): Promise<Exchange | null> {
  return perform(context.ledger, context.baseUrl, context.round, request, writer.workspace.key, context.inFlight)
}

function entryLines(random: Prng, accounts: readonly string[]): { account: string; amount: number }[] {
  const first = random.int(0, accounts.length - 1)
  const second = (first + 1 + random.int(0, accounts.length - 2)) % accounts.length
  const amount = random.int(2, amountMax)
  if (accounts.length > 2 && random.chance(0.25)) {
    const third = accounts.find((_, index) => index !== first && index !== second)!
    return [{ account: accounts[first], amount }, { account: accounts[second], amount: -amount + 1 }, { account: third, amount: -1 }]
  }
  return [{ account: accounts[first], amount }, { account: accounts[second], amount: -amount }]
}

async function postEntry(context: LoadContext, writer: Writer, tag: string): Promise<boolean> {
  const { random, ledger } = context
  const description = `entry-${tag}`
  ledger.attemptedDescriptions.add(description)
  const body: Record<string, unknown> = { lines: entryLines(random, writer.workspace.accounts), description }
  // Half back-dated up to 90 days, to the millisecond: entries land all over the history and in windows.
  if (random.chance(0.5)) body.effective_at = new Date(Date.now() - random.int(0, 90 * dayMs - 1)).toISOString()
  const idempotencyKey = random.chance(0.3) ? `key-${tag}` : undefined
  return (await run(context, writer, { kind: 'entry', workspace: writer.workspace.id, method: 'POST', path: '/v2/entries', body, idempotencyKey, expect: 201 })) !== null
}

async function postUnbalanced(context: LoadContext, writer: Writer, tag: string): Promise<boolean> {
  const description = `refused-${tag}`
  context.ledger.attemptedDescriptions.add(description)
  const [bank, other] = [writer.bank, writer.workspace.accounts.at(-1)!]
  const body = { lines: [{ account: bank, amount: 5 }, { account: other, amount: -4 }], description }
  const request: Request = { kind: 'entry', workspace: writer.workspace.id, method: 'POST', path: '/v2/entries', body, expect: 201, refusal: { status: 422, code: 'entry_unbalanced' } }
  return (await run(context, writer, request)) !== null
}

/** A period of 2..7 days ending 2..90 days ago that overlaps none of the writer's live windows, or null. */
function freePeriod(random: Prng, writer: Writer): { from: string; to: string } | null {
  const today = dateOf(Date.now())
  for (let attempt = 0; attempt < 10; attempt++) {
    const to = addDays(today, -random.int(2, 90))
    const from = addDays(to, -random.int(1, 6))
    if (writer.windows.every((window) => to < window.from || from > window.to)) return { from, to }
  }
  return null
}

async function openWindow(context: LoadContext, writer: Writer, tag: string, overlapOnPurpose: boolean): Promise<boolean> {
  const { random, ledger } = context
  const label = `${overlapOnPurpose ? 'overlap' : 'window'}-${tag}`
  let period = freePeriod(random, writer)
  if (overlapOnPurpose) period = writer.windows.length > 0 ? { from: writer.windows[0].from, to: writer.windows[0].to } : null
  if (period === null || (!overlapOnPurpose && writer.windows.length >= liveWindowsMax)) return true
  ledger.attemptedLabels.add(label)
  const body = { label, accounts: [writer.bank], window: period, claimed_movement: random.int(-amountMax, amountMax), tolerance, statement_ref: `stmt-${tag}` }
  const idempotencyKey = random.chance(0.3) ? `key-${tag}` : undefined
  const request: Request = overlapOnPurpose
    ? { kind: 'window', workspace: writer.workspace.id, method: 'POST', path: '/v2/reconciliations', body, expect: 201, refusal: { status: 409, code: 'window_overlap' } }
    : { kind: 'window', workspace: writer.workspace.id, method: 'POST', path: '/v2/reconciliations', body, idempotencyKey, expect: 201 }
  const exchange = await run(context, writer, request)
  if (exchange === null) return false
  if (!overlapOnPurpose && exchange.status === 201) writer.windows.push({ id: exchange.body.id, ...period, lines: [], entries: [], matches: [] })
  return true
}

/** Posts an entry into a window, adds the statement line that mirrors it, and matches the two by amount and date. */
async function reconcileChain(context: LoadContext, writer: Writer, tag: string): Promise<boolean> {
  const { random, ledger } = context
  if (writer.windows.length === 0) return true
  const window = random.pick(writer.windows)
  const days = Math.round((Date.parse(window.to) - Date.parse(window.from)) / dayMs)
  const date = addDays(window.from, random.int(0, days))
  const amount = random.int(1, amountMax) * (random.chance(0.5) ? 1 : -1)
  const description = `chain-${tag}`
  ledger.attemptedDescriptions.add(description)
  const against = writer.workspace.accounts.at(-1)!
  const entryBody = { lines: [{ account: writer.bank, amount }, { account: against, amount: -amount }], effective_at: `${date}T12:00:00.000Z`, description }
  const entry = await run(context, writer, { kind: 'entry', workspace: writer.workspace.id, method: 'POST', path: '/v2/entries', body: entryBody, expect: 201 })
  if (entry === null) return false
  if (entry.status !== 201) return true
  const lines = await run(context, writer, { kind: 'lines', workspace: writer.workspace.id, method: 'POST', path: `/v2/reconciliations/${window.id}/lines`, body: { lines: [{ amount, date, reference: description }] }, window: window.id, expect: 201 })
  if (lines === null) return false
  if (lines.status !== 201) return true
  const line: FreeLine = { id: lines.body.lines[0].id, amount, date }
  const free: FreeEntry = { id: entry.body.id, amount, date }
  const idempotencyKey = random.chance(0.3) ? `key-${tag}` : undefined
  const body = { statement_lines: [line.id], entries: [free.id], strategy: 'amount_and_date' }
  const match = await run(context, writer, { kind: 'match', workspace: writer.workspace.id, method: 'POST', path: `/v2/reconciliations/${window.id}/matches`, body, idempotencyKey, window: window.id, expect: 200 })
  if (match === null) return false
  if (match.status === 200) window.matches.push({ id: match.body.id, lines: [line], entries: [free] })
  return true
}

async function addLines(context: LoadContext, writer: Writer, tag: string): Promise<boolean> {
  const { random } = context
  if (writer.windows.length === 0) return true
  const window = random.pick(writer.windows)
  const days = Math.round((Date.parse(window.to) - Date.parse(window.from)) / dayMs)
  const lines = Array.from({ length: random.int(1, 3) }, (_, index) => ({
    amount: random.int(1, amountMax) * (random.chance(0.5) ? 1 : -1), date: addDays(window.from, random.int(0, days)), reference: `${tag}-${index}`,
  }))
  const idempotencyKey = random.chance(0.3) ? `key-${tag}` : undefined
  const exchange = await run(context, writer, { kind: 'lines', workspace: writer.workspace.id, method: 'POST', path: `/v2/reconciliations/${window.id}/lines`, body: { lines }, idempotencyKey, window: window.id, expect: 201 })
  if (exchange === null) return false
  if (exchange.status === 201) for (const line of exchange.body.lines) window.lines.push({ id: line.id, amount: line.amount, date: line.date })
  return true
}

/** A write-off of one free line, or a manual match of a free line with a free entry. */
async function matchSome(context: LoadContext, writer: Writer, tag: string): Promise<boolean> {
  const { random } = context
  const window = writer.windows.find((candidate) => candidate.lines.length > 0)
  if (window === undefined) return true
  const line = random.pick(window.lines)
  const entry = window.entries.length > 0 && random.chance(0.5) ? random.pick(window.entries) : null
  const body = entry === null
    ? { statement_lines: [line.id], strategy: 'write_off', reason: `written off ${tag}` }
    : { statement_lines: [line.id], entries: [entry.id], strategy: 'manual', reason: `manual ${tag}` }
  const idempotencyKey = random.chance(0.3) ? `key-${tag}` : undefined
  const exchange = await run(context, writer, { kind: 'match', workspace: writer.workspace.id, method: 'POST', path: `/v2/reconciliations/${window.id}/matches`, body, idempotencyKey, window: window.id, expect: 200 })
  if (exchange === null) return false
  if (exchange.status !== 200) return true
  window.lines.splice(window.lines.indexOf(line), 1)
  if (entry !== null) window.entries.splice(window.entries.indexOf(entry), 1)
  window.matches.push({ id: exchange.body.id, lines: [line], entries: entry === null ? [] : [entry] })
  return true
}

async function unmatchOne(context: LoadContext, writer: Writer): Promise<boolean> {
  const window = writer.windows.find((candidate) => candidate.matches.length > 0)
  if (window === undefined) return true
  const match = context.random.pick(window.matches)
  const exchange = await run(context, writer, { kind: 'unmatch', workspace: writer.workspace.id, method: 'DELETE', path: `/v2/reconciliations/${window.id}/matches/${match.id}`, match: match.id, window: window.id, expect: 200 })
  if (exchange === null) return false
  if (exchange.status !== 200) return true
  window.matches.splice(window.matches.indexOf(match), 1)
  window.lines.push(...match.lines)
  window.entries.push(...match.entries)
  return true
}

async function finishWindow(context: LoadContext, writer: Writer, tag: string): Promise<boolean> {
  if (writer.windows.length === 0) return true
  const window = writer.windows[0]
  const close = context.random.chance(0.7)
  const body = close ? { state: 'closed', reason: `closed ${tag}` } : { state: 'abandoned', reason: `abandoned ${tag}` }
  const exchange = await run(context, writer, { kind: close ? 'close' : 'abandon', workspace: writer.workspace.id, method: 'PATCH', path: `/v2/reconciliations/${window.id}`, body, window: window.id, expect: 200 })
  if (exchange === null) return false
  if (exchange.status === 200) writer.windows.splice(0, 1)
  return true
}

/** Retries an acknowledged keyed request of this workspace: the stored answer must come back, byte for byte. */
async function retryKeyed(context: LoadContext, writer: Writer): Promise<boolean> {
  const { ledger, random } = context
  if (ledger.keyed.length === 0) return true
  const stored = random.pick(ledger.keyed)
  if (stored.workspace !== writer.workspace.id) return true
  let exchange: Exchange
  try {
    exchange = await send(context.baseUrl, writer.workspace.key, stored.method, stored.path, stored.body, stored.idempotencyKey)
  } catch (error) {
    if (error instanceof NoAnswer) return false
    throw error
  }
  ledger.replaysChecked++
  if (exchange.status !== stored.status || !exchange.replayed || exchange.text !== stored.text) {
    ledger.noteUnexpected(`replay of ${stored.idempotencyKey}: ${exchange.status} replayed=${exchange.replayed} ${exchange.text === stored.text ? 'same body' : 'other body'}`)
  }
  return true
}

/** Reads the newest non-back-dated entries: whatever a 200 read showed must survive the kill. */
export async function runReader(context: LoadContext, workspace: Workspace, sinceMs: number): Promise<void> {
  let from = new Date(sinceMs).toISOString()
  for (let reads = 0; reads < 100_000 && !context.killed() && Date.now() < context.deadlineMs; reads++) {
    let exchange: Exchange
    try {
      exchange = await send(context.baseUrl, workspace.key, 'GET', `/v2/entries?from=${encodeURIComponent(from)}&limit=200`)
    } catch (error) {
      if (error instanceof NoAnswer) return
      throw error
    }
    if (exchange.status !== 200) {
      context.ledger.noteUnexpected(`GET /v2/entries: ${exchange.status}`)
      continue
    }
    for (const entry of exchange.body.data) {
      context.ledger.readEntries.set(entry.id, workspace.id)
      if (entry.effective_at > from) from = entry.effective_at
    }
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
