/**
 * @module Embedded use without HTTP: a typed Ledger that runs the very route handlers of the service
 * through the same lifecycle (same validation, idempotency, commands, actor and log) and resolves once the answer is durable.
 */

import assert from 'node:assert/strict'
import type { Static } from 'typebox'
import { resolveConfig, type Config, type ConfigInput } from '../config.js'
import { randomText, workspaceTagBits } from '../api/admin-routes.js'
import { Lifecycle, type Transport } from '../api/lifecycle.js'
import type { V2Route } from '../api/route.js'
import type { accountCreate, accountUpdate, entryPost, matchCreate, statementLine, windowOpen, workspaceCreate, workspaceUpdate } from '../api/schemas/ledger.js'
import type { Account, Balance, CreatedApiKey, Entry, HistoryEvent, LinesAdded, ListedStatementLine, Match, Page, ReconciliationWindow, StatementImport, Workspace } from '../api/schemas/responses.js'
import { adminSurface, v2Surface } from '../api/surfaces.js'
import { reject, statusOf, type ErrorCode, type ErrorDetail, type Rejection } from '../errors.js'
import { scopes, type KeyRecord, type Scope } from '../ledger/system.js'
import { LocalNode } from '../shard/local-node.js'
import type { StatementFormat } from '../statements/formats.js'
import { checkDataDirContents, lockDataDir, type DataDirLock } from '../data-dir.js'
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
  /** As the HTTP Idempotency-Key (every call that writes): a repeat with the same input returns the first answer. */
  readonly idempotencyKey?: string
  /** Recorded as the acting key (closed_by, history key_id). Default `embedded`. */
  readonly keyId?: string
}

export type AccountInput = Static<typeof accountCreate>
export type AccountChange = Static<typeof accountUpdate>
export type EntryInput = Static<typeof entryPost>
export type WindowInput = Static<typeof windowOpen>
export type StatementLineInput = Static<typeof statementLine>

/** How a statement file is read: its format (a name of statements/formats.ts; else from contentType, else the content) and the label of its windows. */
export interface StatementFileInput {
  readonly format?: StatementFormat
  readonly contentType?: string
  readonly label?: string
}
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

const embeddedKeyId = 'embedded'

/** One call's promise, settled by the lifecycle's answer. */
interface Pending {
  resolve(value: unknown): void
  reject(error: TrueupError): void
}

/** The answer as the HTTP API would send it, parsed again: a copy, never a reference into state. */
const embeddedTransport: Transport<Pending> = {
  respond: (pending, status, body) => {
    if (status < 300) return pending.resolve(body === '' ? undefined : JSON.parse(body))
    const { error } = JSON.parse(body) as { error: { code: ErrorCode; message: string; details?: ErrorDetail[] } }
    pending.reject(new TrueupError({ ok: false, ...error }, status))
  },
}

/** A failed log stops the process's use of this data dir: memory is ahead of the log (docs/ARCHITECTURE.md). */
function onLogFailure(error: Error): void {
  process.emitWarning(`trueup: the log could not be written (${error.message}); close this Ledger and open the data dir again to recover from the log.`)
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
  readonly #node: LocalNode
  readonly #workspace: string
  readonly #v2: Lifecycle<Pending>
  readonly #admin: Lifecycle<Pending>
  readonly #lock: DataDirLock
  #closed = false

  private constructor(node: LocalNode, workspace: string, clock: () => number, config: Config, lock: DataDirLock) {
    this.#node = node
    this.#lock = lock
    this.#workspace = workspace
    const limits = { clock, bodyBytesMax: config.bodyBytesMax, importBodyBytesMax: config.importBodyBytesMax }
    // In-process there is no key to check and no rate budget: the same stages, those three skipped.
    this.#v2 = new Lifecycle({ ...v2Surface(node.shard), ...limits, skip: ['auth', 'scope', 'budget', 'recheck', 'rate'] }, embeddedTransport)
    this.#admin = new Lifecycle({ ...adminSurface(node.shard, null), ...limits, skip: ['auth', 'scope', 'budget', 'recheck', 'idempotency', 'rate'] }, embeddedTransport)
  }

  /** Opens (or creates) a data dir, replays its log and snapshots, and resolves once everything is durable. */
  static async open(options: LedgerOptions): Promise<Ledger> {
    const config = resolveConfig({ ...options.config, dataDir: options.dataDir })
    const clock = options.clock ?? (() => Date.now())
    const workspace = options.workspace ?? 'default'
    // One owner per data dir, as for the server: a second Ledger or server on it is refused (StartRefused).
    const lock = lockDataDir(config.dataDir)
    try {
      checkDataDirContents(config.dataDir)
      // The service's own composition (src/shard/local-node.ts): log, replay, shard, snapshots, retention, webhooks.
      const node = await LocalNode.open(config, { clock, onLogFailure })
      try {
        node.createFirstWorkspace(workspace, randomText(workspaceTagBits))
        await node.durable()
      } catch (error) {
        await node.close()
        throw error
      }
      node.start()
      return new Ledger(node, workspace, clock, config, lock)
    } catch (error) {
      lock.release()
      throw error
    }
  }

  /** Waits for pending writes, writes snapshots, closes the log. The Ledger is unusable afterwards. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    await this.#node.close()
    this.#lock.release()
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

  /** A new entry with every line of `id` negated (docs/API.md, Reversals). */
  reverseEntry(id: string, input: { readonly effective_at?: string; readonly description?: string | null } = {}, options?: CallOptions): Promise<Entry> {
    return this.#call('POST', '/v2/entries/:id/reverse', { params: { id }, body: input }, options) as Promise<Entry>
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

  /**
   * A bank statement file (camt.053, MT940 or BAI2; the format from `format`, else `contentType`, else the
   * content): each statement opens a window with its lines, all or none (docs/API.md, Bank statement formats).
   */
  importStatements(file: Uint8Array | string, input: StatementFileInput = {}, options?: CallOptions): Promise<StatementImport> {
    const bytes = typeof file === 'string' ? Buffer.from(file, 'utf8') : Buffer.from(file.buffer, file.byteOffset, file.byteLength)
    const query = { format: input.format, label: input.label }
    return this.#call('POST', '/v2/statements', { query, file: { bytes, contentType: input.contentType } }, options) as Promise<StatementImport>
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
  closeWindow(window: string, input: { readonly reason?: string; readonly lock_period?: boolean } = {}, options?: CallOptions): Promise<ReconciliationWindow> {
    return this.#call('PATCH', '/v2/reconciliations/:id', { params: { id: window }, body: { state: 'closed', ...input } }, options) as Promise<ReconciliationWindow>
  }

  abandonWindow(window: string, reason: string, options?: CallOptions): Promise<ReconciliationWindow> {
    return this.#call('PATCH', '/v2/reconciliations/:id', { params: { id: window }, body: { state: 'abandoned', reason } }, options) as Promise<ReconciliationWindow>
  }

  /** A page of the window's audit trail, oldest first (paginated like every list: it grows with every posting into the period). */
  windowHistory(window: string, query?: PageQuery, options?: CallOptions): Promise<Page<HistoryEvent>> {
    return this.#call('GET', '/v2/reconciliations/:id/history', { params: { id: window }, query }, options) as Promise<Page<HistoryEvent>>
  }

  // --- The one path every call takes: the lifecycle of every transport (src/api/lifecycle.ts) ----

  // async: a closed Ledger's assertion becomes a rejected promise, as every other refusal.
  async #call(method: V2Route['method'], pattern: string, input: { params?: Record<string, string>; query?: object; body?: unknown; csv?: string; file?: { bytes: Buffer; contentType?: string } }, options: CallOptions = {}): Promise<unknown> {
    assert.ok(!this.#closed, 'the Ledger is closed')
    const workspaceId = options.workspace ?? this.#workspace
    const workspace = this.#node.shard.system.workspaces.get(workspaceId)
    if (workspace === undefined) throw failure(reject('not_found', `No workspace ${workspaceId}.`))
    const keyId = options.keyId ?? embeddedKeyId
    const key: KeyRecord = { id: keyId, workspace: workspaceId, scopes, accounts: null, name: embeddedKeyId, secretHash: '', createdAtMs: 0, revokedAtMs: null }
    const headers = new Map<string, string>()
    if (options.idempotencyKey !== undefined) headers.set('idempotency-key', options.idempotencyKey)
    if (input.csv !== undefined) headers.set('content-type', 'text/csv')
    if (input.file?.contentType !== undefined) headers.set('content-type', input.file.contentType)
    const body = input.file !== undefined ? input.file.bytes : input.csv !== undefined ? Buffer.from(input.csv, 'utf8') : input.body === undefined ? undefined : { value: input.body }
    const request = { method, path: pathOf(pattern, input.params ?? {}), query: searchParams(input.query as QueryInput | undefined).toString(), headers, body, caller: { key, workspace } }
    return new Promise((resolve, rejectPromise) => this.#v2.run(request, { resolve, reject: rejectPromise }))
  }

  async #callAdmin(method: string, pattern: string, params: Record<string, string>, input: unknown): Promise<unknown> {
    assert.ok(!this.#closed, 'the Ledger is closed')
    const request = { method, path: pathOf(pattern, params), query: '', headers: new Map<string, string>(), body: input === undefined ? undefined : { value: input }, caller: { key: null, workspace: null } }
    return new Promise((resolve, rejectPromise) => this.#admin.run(request, { resolve, reject: rejectPromise }))
  }
}
