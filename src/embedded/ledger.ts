/**
 * @module Embedded use without HTTP: a typed Ledger that runs the very route handlers of the service
 * (same validation, same commands, same actor, same log) and resolves once the answer is durable.
 */

import assert from 'node:assert/strict'
import fs from 'node:fs'
import path from 'node:path'
import type { Static } from 'typebox'
import { Runtime } from '../actor/runtime.js'
import type { Submitted } from '../actor/workspace-actor.js'
import { resolveConfig, type ConfigInput } from '../config.js'
import { adminRoutes, randomText, type AdminRoute } from '../edge/admin.js'
import { fingerprint, isIdempotencyKey } from '../edge/idempotency.js'
import type { V2Route } from '../edge/route.js'
import type { accountCreate, accountUpdate, entryPost, matchCreate, statementLine, windowOpen, workspaceCreate, workspaceUpdate } from '../edge/schemas/ledger.js'
import type { Account, Balance, CreatedApiKey, Entry, HistoryEvent, LinesAdded, ListedStatementLine, Match, Page, ReconciliationWindow, Workspace } from '../edge/schemas/responses.js'
import { v2Routes } from '../edge/server.js'
import { reject, statusOf, type Rejection } from '../errors.js'
import { findIdempotency } from '../ledger/idempotency.js'
import { limitsDefault, scopes, type KeyRecord, type Scope } from '../ledger/system.js'
import { CommandLog } from '../log/command-log.js'
import { TrueupError } from './trueup-error.js'

export interface LedgerOptions {
  readonly dataDir: string
  /**
   * The workspace the methods act on unless a call names another. On an empty data dir it is created
   * (timezone UTC, default limits). Default `default`, as the service's first start.
   */
  readonly workspace?: string
  /** Milliseconds since the epoch; injectable for tests. */
  readonly clock?: () => number
  /** Log and snapshot limits (the HTTP settings are ignored). */
  readonly config?: Pick<ConfigInput, 'groupCommitRecordsMax' | 'pendingRecordsMax' | 'snapshotCommandsInterval'>
}

export interface CallOptions {
  /** Another workspace than the Ledger's own. */
  readonly workspace?: string
  /** As the HTTP Idempotency-Key (POST-like calls): a repeat with the same input returns the first answer. */
  readonly idempotencyKey?: string
  /** Recorded as the acting key (closed_by, history key_id). Default `embedded`. */
  readonly keyId?: string
}

export type AccountInput = Static<typeof accountCreate>
export type AccountChange = Static<typeof accountUpdate>
export type EntryInput = Static<typeof entryPost>
export type WindowInput = Static<typeof windowOpen>
export type StatementLineInput = Static<typeof statementLine>
export type MatchInput = Static<typeof matchCreate>
export type WorkspaceInput = Static<typeof workspaceCreate>
export type WorkspaceChange = Static<typeof workspaceUpdate>
/** POST /admin/keys; `workspace` defaults to the Ledger's. */
export interface KeyInput {
  readonly workspace?: string
  readonly scopes: readonly Scope[]
  /** Visible account names, exact or `prefix:*`; null or absent: every account. */
  readonly accounts?: readonly string[] | null
  readonly name?: string | null
}

export interface PageQuery { readonly limit?: number; readonly cursor?: string }
export interface EntryQuery extends PageQuery { readonly account?: string; readonly reconciliation?: string; readonly from?: string | Date; readonly to?: string | Date }
export interface WindowQuery extends PageQuery { readonly state?: 'open' | 'balanced' | 'closed' | 'abandoned'; readonly account?: string }
export interface LineQuery extends PageQuery { readonly status?: 'matched' | 'unmatched' }

type QueryInput = Readonly<Record<string, string | number | Date | undefined>>

const snapshotCheckIntervalMs = 5_000
const embeddedKeyId = 'embedded'

function routeTable<R extends { readonly method: string; readonly pattern: string }>(routes: readonly R[]): ReadonlyMap<string, R> {
  return new Map(routes.map((route) => [`${route.method} ${route.pattern}`, route]))
}

function searchParams(query: QueryInput | undefined): URLSearchParams {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) params.set(name, value instanceof Date ? value.toISOString() : String(value))
  }
  return params
}

function pathOf(pattern: string, params: Readonly<Record<string, string>>): string {
  return pattern.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(params[name]))
}

function failure(rejection: Rejection): TrueupError {
  return new TrueupError(rejection, statusOf(rejection.code))
}

/**
 * The ledger in this process. Calls may overlap: each runs synchronously on its workspace's actor,
 * and concurrent writes share one group commit. One process at a time may open a data dir.
 */
export class Ledger {
  readonly #runtime: Runtime
  readonly #workspace: string
  readonly #clock: () => number
  readonly #snapshots: NodeJS.Timeout
  readonly #v2 = routeTable(v2Routes)
  readonly #admin = routeTable(adminRoutes)
  #closed = false

  private constructor(runtime: Runtime, workspace: string, clock: () => number) {
    this.#runtime = runtime
    this.#workspace = workspace
    this.#clock = clock
    this.#snapshots = setInterval(() => runtime.snapshotDue(false), snapshotCheckIntervalMs)
    this.#snapshots.unref()
  }

  /** Opens (or creates) a data dir, replays its log and snapshots, and resolves once everything is durable. */
  static async open(options: LedgerOptions): Promise<Ledger> {
    const config = resolveConfig({ ...options.config, dataDir: options.dataDir })
    const clock = options.clock ?? (() => Date.now())
    const workspace = options.workspace ?? 'default'
    fs.mkdirSync(config.dataDir, { recursive: true })
    const log = new CommandLog({ path: path.join(config.dataDir, 'log'), groupCommitRecordsMax: config.groupCommitRecordsMax, pendingRecordsMax: config.pendingRecordsMax })
    const runtime = new Runtime(log, config.snapshotCommandsInterval)
    runtime.replay(clock)
    if (runtime.system.workspaces.size === 0) {
      const created = runtime.submitSystem({ type: 'workspace.create', at_ms: clock(), id: workspace, time_zone: 'UTC', limits: limitsDefault, tag: randomText(40) })
      assert.ok(created.outcome.ok, `cannot create workspace ${workspace}`)
    }
    const ledger = new Ledger(runtime, workspace, clock)
    await ledger.#durable(log.lastSeq)
    return ledger
  }

  /** Waits for pending writes, writes snapshots, closes the log. The Ledger is unusable afterwards. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    clearInterval(this.#snapshots)
    await this.#runtime.log.idle()
    this.#runtime.snapshotDue(true)
    await this.#runtime.log.close()
  }

  // --- Workspaces and keys (the admin API) ---------------------------------------------------------

  createWorkspace(input: WorkspaceInput): Promise<Workspace> {
    return this.#callAdmin('POST', '/admin/workspaces', {}, input) as Promise<Workspace>
  }

  updateWorkspace(id: string, input: WorkspaceChange): Promise<Workspace> {
    return this.#callAdmin('PATCH', '/admin/workspaces/:id', { id }, input) as Promise<Workspace>
  }

  /** A key for the HTTP API; its secret is in the answer and nowhere else. */
  createKey(input: KeyInput): Promise<CreatedApiKey> {
    return this.#callAdmin('POST', '/admin/keys', {}, { ...input, workspace: input.workspace ?? this.#workspace }) as Promise<CreatedApiKey>
  }

  async revokeKey(id: string): Promise<void> {
    await this.#callAdmin('DELETE', '/admin/keys/:id', { id }, undefined)
  }

  // --- Accounts and entries ------------------------------------------------------------------------

  createAccount(input: AccountInput, options?: CallOptions): Promise<Account> {
    return this.#call('POST', '/v2/accounts', { body: input }, options) as Promise<Account>
  }

  /** Rename or re-tag; `account` is an id or a name. */
  updateAccount(account: string, input: AccountChange, options?: CallOptions): Promise<Account> {
    return this.#call('PATCH', '/v2/accounts/:id', { params: { id: account }, body: input }, options) as Promise<Account>
  }

  getAccount(account: string, options?: CallOptions): Promise<Account> {
    return this.#call('GET', '/v2/accounts/:id', { params: { id: account } }, options) as Promise<Account>
  }

  listAccounts(query?: PageQuery, options?: CallOptions): Promise<Page<Account>> {
    return this.#call('GET', '/v2/accounts', { query }, options) as Promise<Page<Account>>
  }

  postEntry(input: EntryInput, options?: CallOptions): Promise<Entry> {
    return this.#call('POST', '/v2/entries', { body: input }, options) as Promise<Entry>
  }

  getEntry(id: string, options?: CallOptions): Promise<Entry> {
    return this.#call('GET', '/v2/entries/:id', { params: { id } }, options) as Promise<Entry>
  }

  listEntries(query?: EntryQuery, options?: CallOptions): Promise<Page<Entry>> {
    return this.#call('GET', '/v2/entries', { query }, options) as Promise<Page<Entry>>
  }

  /** The sum of the account's lines with effective_at ≤ at (default now). */
  balance(account: string, query?: { readonly at?: string | Date }, options?: CallOptions): Promise<Balance> {
    return this.#call('GET', '/v2/accounts/:id/balance', { params: { id: account }, query }, options) as Promise<Balance>
  }

  // --- Reconciliation windows ----------------------------------------------------------------------

  openWindow(input: WindowInput, options?: CallOptions): Promise<ReconciliationWindow> {
    return this.#call('POST', '/v2/reconciliations', { body: input }, options) as Promise<ReconciliationWindow>
  }

  getWindow(id: string, options?: CallOptions): Promise<ReconciliationWindow> {
    return this.#call('GET', '/v2/reconciliations/:id', { params: { id } }, options) as Promise<ReconciliationWindow>
  }

  listWindows(query?: WindowQuery, options?: CallOptions): Promise<Page<ReconciliationWindow>> {
    return this.#call('GET', '/v2/reconciliations', { query }, options) as Promise<Page<ReconciliationWindow>>
  }

  /** Statement lines as objects, or a CSV text with the header date,amount,reference,description. */
  addStatementLines(window: string, lines: readonly StatementLineInput[] | string, options?: CallOptions): Promise<LinesAdded> {
    const input = typeof lines === 'string' ? { csv: lines } : { body: { lines } }
    return this.#call('POST', '/v2/reconciliations/:id/lines', { params: { id: window }, ...input }, options) as Promise<LinesAdded>
  }

  listStatementLines(window: string, query?: LineQuery, options?: CallOptions): Promise<Page<ListedStatementLine>> {
    return this.#call('GET', '/v2/reconciliations/:id/lines', { params: { id: window }, query }, options) as Promise<Page<ListedStatementLine>>
  }

  match(window: string, input: MatchInput, options?: CallOptions): Promise<Match> {
    return this.#call('POST', '/v2/reconciliations/:id/matches', { params: { id: window }, body: input }, options) as Promise<Match>
  }

  /** Reverses a match: its lines and entries are free again; the match stays listed with reversed_at. */
  unmatch(window: string, match: string, options?: CallOptions): Promise<Match> {
    return this.#call('DELETE', '/v2/reconciliations/:id/matches/:match_id', { params: { id: window, match_id: match } }, options) as Promise<Match>
  }

  listMatches(window: string, query?: PageQuery, options?: CallOptions): Promise<Page<Match>> {
    return this.#call('GET', '/v2/reconciliations/:id/matches', { params: { id: window }, query }, options) as Promise<Page<Match>>
  }

  /** From balanced; from open only within tolerance and with a reason (or an active write-off). */
  closeWindow(window: string, input: { readonly reason?: string } = {}, options?: CallOptions): Promise<ReconciliationWindow> {
    return this.#call('PATCH', '/v2/reconciliations/:id', { params: { id: window }, body: { state: 'closed', ...input } }, options) as Promise<ReconciliationWindow>
  }

  abandonWindow(window: string, reason: string, options?: CallOptions): Promise<ReconciliationWindow> {
    return this.#call('PATCH', '/v2/reconciliations/:id', { params: { id: window }, body: { state: 'abandoned', reason } }, options) as Promise<ReconciliationWindow>
  }

  /** A page of the window's audit trail, oldest first (paginated like every list: it grows with every posting into the period). */
  windowHistory(window: string, query?: PageQuery, options?: CallOptions): Promise<Page<HistoryEvent>> {
    return this.#call('GET', '/v2/reconciliations/:id/history', { params: { id: window }, query }, options) as Promise<Page<HistoryEvent>>
  }

  // --- The one path every call takes ---------------------------------------------------------------

  #durable(seq: number): Promise<void> {
    return new Promise((resolve, rejectPromise) => this.#runtime.log.afterDurable(seq, (error) => {
      if (error === null) return resolve()
      rejectPromise(failure(reject('unavailable', `The log could not be written: ${error.message}`)))
    }))
  }

  /** After the barrier: the answer as the HTTP API would send it (a copy, never a reference into state), or a TrueupError. */
  async #settle(result: Submitted | Rejection, barrierSeq: number): Promise<unknown> {
    if ('ok' in result) {
      await this.#durable(barrierSeq)
      throw failure(result)
    }
    await this.#durable(result.barrierSeq)
    if (!result.outcome.ok) throw failure(result.outcome)
    return result.outcome.status === 204 ? undefined : structuredClone(result.outcome.body)
  }

  #route(method: string, pattern: string): V2Route {
    assert.ok(!this.#closed, 'the Ledger is closed')
    const route = this.#v2.get(`${method} ${pattern}`)
    assert.ok(route !== undefined, `no route ${method} ${pattern}`)
    return route
  }

  #body(route: V2Route, input: { body?: unknown; csv?: string }): unknown {
    assert.ok(route.body !== undefined)
    const parsed = input.csv !== undefined && route.body.parse !== undefined ? route.body.parse(Buffer.from(input.csv, 'utf8'), 'text/csv') : { ok: true as const, value: input.body }
    if (!parsed.ok) throw failure(parsed)
    const valid = route.body.validate(parsed.value)
    if (!valid.ok) throw failure(valid)
    return valid.value
  }

  async #call(method: V2Route['method'], pattern: string, input: { params?: Record<string, string>; query?: object; body?: unknown; csv?: string }, options: CallOptions = {}): Promise<unknown> {
    const route = this.#route(method, pattern)
    const workspaceId = options.workspace ?? this.#workspace
    const workspace = this.#runtime.system.workspaces.get(workspaceId)
    if (workspace === undefined) throw failure(reject('not_found', `No workspace ${workspaceId}.`))
    const actor = this.#runtime.actor(workspaceId)
    const params = input.params ?? {}
    const atMs = this.#clock()
    const body = route.body === undefined ? undefined : this.#body(route, input)
    let idempotency: { key: string; fingerprint: string } | undefined
    if (options.idempotencyKey !== undefined && method === 'POST') {
      if (!isIdempotencyKey(options.idempotencyKey)) throw failure(reject('request_invalid', 'Idempotency-Key must be 1 to 255 printable ASCII characters.'))
      const print = fingerprint(method, pathOf(pattern, params), input.csv !== undefined ? { bytes: Buffer.from(input.csv, 'utf8') } : { json: input.body })
      const stored = findIdempotency(actor.state, options.idempotencyKey, atMs)
      if (stored !== undefined) {
        if (stored.fingerprint !== print) throw failure(reject('idempotency_conflict'))
        await this.#durable(actor.lastAppliedSeq)
        return JSON.parse(stored.body)
      }
      idempotency = { key: options.idempotencyKey, fingerprint: print }
    }
    const keyId = options.keyId ?? embeddedKeyId
    const key: KeyRecord = { id: keyId, workspace: workspaceId, scopes, accounts: null, name: embeddedKeyId, secretHash: '', createdAtMs: 0, revokedAtMs: null }
    const envelope = { at_ms: atMs, key_id: keyId, visibility: null, ...(idempotency === undefined ? {} : { idempotency }) }
    const result = route.handle({ params, query: searchParams(input.query as QueryInput | undefined), body, key, workspace, actor, atMs, envelope })
    return this.#settle(result, actor.lastAppliedSeq)
  }

  async #callAdmin(method: string, pattern: string, params: Record<string, string>, input: unknown): Promise<unknown> {
    assert.ok(!this.#closed, 'the Ledger is closed')
    const route: AdminRoute | undefined = this.#admin.get(`${method} ${pattern}`)
    assert.ok(route !== undefined, `no admin route ${method} ${pattern}`)
    let body: unknown
    if (route.validate !== undefined) {
      const valid = route.validate(input)
      if (!valid.ok) throw failure(valid)
      body = valid.value
    }
    const { submitted, extra } = route.handle(this.#runtime, params, body, this.#clock())
    await this.#durable(submitted.barrierSeq)
    if (!submitted.outcome.ok) throw failure(submitted.outcome)
    return submitted.outcome.status === 204 ? undefined : structuredClone({ ...(submitted.outcome.body as object), ...extra })
  }
}
