/**
 * @module The request lifecycle as data: one ordered list of named stages that every transport runs
 * (HTTP /v2 and /admin, the embedded Ledger, WebSocket requests). A transport turns its request into an
 * ApiRequest and receives (status, body, headers); it configures which stages do not apply to it by
 * name (in-process there is no key to check and no rate budget), never by a copy of the list.
 * docs/ARCHITECTURE.md, "The request lifecycle", documents each stage and the status it fails with.
 */

import { errorBody, reject, statusOf, type Rejection } from '../errors.js'
import type { KeyRecord, WorkspaceRecord } from '../ledger/system.js'
import { nothingStored, type Headers, type Reply } from '../shard/operation.js'
import { isJsonBody, parseBody, type ParsedBody } from './body.js'
import { fingerprint, isIdempotencyKey } from './idempotency.js'
import { queryValuesOf } from './query.js'
import type { LabeledRoute, LifecycleRoute } from './route.js'
import { allowOf, Router } from './router.js'
import { declaredFormatOf, readStatementFile, StatementFile } from './statement-file.js'
import { pullFrom, StreamedAnswer, type Pull } from './streamed-answer.js'

export type { Headers } from '../shard/operation.js'

/** The stages, in the order they run; docs/API.md, Conventions fixes the order in which their errors answer. */
export const stageNames = ['route', 'auth', 'method', 'scope', 'budget', 'body', 'recheck', 'idempotency', 'rate', 'size', 'parse', 'query', 'schema', 'command', 'actor', 'reply'] as const
export type StageName = (typeof stageNames)[number]

/** Who calls, once authenticated: a workspace's API key, or the admin (key and workspace null). */
export interface Caller {
  readonly key: KeyRecord | null
  readonly workspace: WorkspaceRecord | null
}

/** A request as any transport hands it over. Header names are lower case. */
export interface ApiRequest {
  readonly method: string
  readonly path: string
  /** The query string without `?`. */
  readonly query: string
  readonly headers: ReadonlyMap<string, string>
  /**
   * The body in hand: its bytes, or a value already parsed (the embedded Ledger, a WebSocket message;
   * with byteLength, the size stage holds it to the route's limit as it does bytes).
   * Absent: the transport streams it (Transport.readBody) once the stages before `body` passed.
   */
  readonly body?: Buffer | { readonly value: unknown; readonly byteLength?: number }
  /** The caller, when the transport authenticated it itself (the embedded Ledger skips `auth`). */
  readonly caller?: Caller
}

/** How the lifecycle talks back to a transport; `T` is the transport's handle on one exchange. */
export interface Transport<T> {
  respond(target: T, status: number, body: string, headers: Headers): void
  /** Told the route once it is known (metrics and request logs label by it). */
  routed?(target: T, route: LabeledRoute): void
  /** Reads a body that is not in hand, up to bytesMax; null when it was longer (the rest is drained). */
  readBody?(target: T, bytesMax: number, done: (bytes: Buffer | null) => void): void
  /**
   * Writes a streamed answer (streamed-answer.ts): status and headers, then each chunk `pull` gives, the
   * next pulled only once the client took the last. Absent: the chunks are gathered and `respond` answers.
   */
  stream?(target: T, status: number, headers: Headers, pull: Pull, close: () => void): void
}

/** A rate bucket as the `rate` stage uses it (edge/rate-limit.ts's TokenBucket). */
export interface Bucket {
  readonly limitPerMinute: number
  remaining(nowMs: number): number
  tryTake(nowMs: number, tokens?: number, mayOwe?: boolean): boolean
  retryAfterSeconds(nowMs: number, tokens?: number): number
  giveBack(nowMs: number, tokens: number): void
}

export interface RateBudgets {
  of(workspace: WorkspaceRecord, nowMs: number): { readonly reads: Bucket; readonly writes: Bucket }
}

/** What differs between the route kinds: how the handler is called and who executes what it built. */
export interface Handler {
  /** The `command` stage: the handler's context and call; a Rejection is a refusal of the request's shape. */
  build(flow: Flow): unknown
  /**
   * The `actor` stage: what was built, sent to the shard (a refusal answered at its barrier), its reply once durable; an export
   * streams. The reply itself when the shard answered at once (the flow goes on in this turn), else a Promise of it.
   */
  execute(flow: Flow, built: unknown): Reply | StreamedAnswer | Promise<Reply | StreamedAnswer>
  /**
   * The `budget` and `idempotency` stages: what the caller's Idempotency-Key names in its workspace (a replay,
   * a conflict, or nothingStored; without a fingerprint, 200 when anything is stored).
   */
  lookUp?(flow: Flow, idempotencyKey: string, fingerprint: string | null, atMs: number): Reply | Promise<Reply>
}

export interface LifecycleOptions {
  readonly routes: readonly LifecycleRoute[]
  /** Stages that do not apply to this transport. */
  readonly skip: readonly StageName[]
  readonly handler: Handler
  /** The `auth` stage: the caller an Authorization header names, or null. */
  readonly authenticate?: (authorization: string | undefined) => Caller | null
  /** Its refusal (the admin API names the admin token). */
  readonly unauthenticated?: Rejection
  /** The `rate` stage's buckets; absent, no rate headers either. */
  readonly buckets?: RateBudgets
  readonly clock: () => number
  /** The JSON body limit (Config.bodyBytesMax). */
  readonly bodyBytesMax: number
  /** The statement import limit (Config.importBodyBytesMax), for routes that name it. */
  readonly importBodyBytesMax: number
  readonly onRateLimited?: (workspace: string, bucket: 'reads' | 'writes') => void
  /** HTTP serves HEAD wherever it serves GET: a 405's Allow then lists HEAD beside GET. */
  readonly headServed?: boolean
  /**
   * Paths the transport serves itself, outside the route table (HTTP: the WebSocket upgrade of GET
   * /v2/stream): known paths for a 405's Allow; a request of their method that came here anyway (a
   * GET without the upgrade) gets the route's refusal, after authentication like a 405.
   */
  readonly elsewhere?: readonly ElsewhereRoute[]
}

/** A route a transport serves outside the lifecycle, and what a request of it that reaches the lifecycle gets. */
export interface ElsewhereRoute extends LabeledRoute {
  readonly refusal: Rejection
}

/** One request on its way through the stages: one object per request, no closure per stage. */
export class Flow {
  readonly request: ApiRequest
  readonly target: unknown
  route: LifecycleRoute | null = null
  params: Readonly<Record<string, string>> = {}
  /** The values of the route's declared query parameters, once the `query` stage read them. */
  query: Readonly<Record<string, unknown>> = {}
  /** A known path that no route serves with this method: the methods it serves (the `method` stage answers 405). */
  allowed: readonly string[] | null = null
  caller: Caller | null
  bucket: Bucket | null = null
  /** Both budgets of the caller's workspace: the `rate` stage picks one once the body says whether it is a read. */
  buckets: { readonly reads: Bucket; readonly writes: Bucket } | null = null
  /** undefined until in hand; null when over the route's limit. */
  bytes: Buffer | null | undefined
  /** The transport is reading the body (started early by `budget`); `body` waits for it with resumeOnBody. */
  bodyReading = false
  resumeOnBody = false
  #parsed: ParsedBody | undefined
  body: unknown = undefined
  atMs = 0
  idempotency: { key: string; fingerprint: string } | undefined = undefined
  idempotencyKeyInvalid = false
  /** Tokens the `rate` stage took, given back when the actor finds the request is a replay after all. */
  tokensTaken = 0
  built: unknown = undefined
  /** The shard's reply (a replay, or the request's answer), or an export to stream. */
  reply: Reply | StreamedAnswer | null = null
  /** The stage to resume at after an asynchronous step. */
  next = 0

  constructor(request: ApiRequest, target: unknown) {
    this.request = request
    this.target = target
    this.caller = request.caller ?? null
    this.bytes = Buffer.isBuffer(request.body) ? request.body : undefined
  }

  /** The body came as a parsed value (no bytes to measure or parse). */
  get hasValue(): boolean {
    return this.request.body !== undefined && !Buffer.isBuffer(this.request.body)
  }

  /** A GET, or a request its route calls a read from its body (a dry run): reads budget, no Idempotency-Key. */
  get isRead(): boolean {
    if (this.request.method === 'GET') return true
    const isRead = this.route?.isRead
    const parsed = isRead === undefined ? null : this.parsed()
    return parsed !== null && parsed.ok && isRead!(parsed.value)
  }

  /** Write tokens the request takes (one, or one per match of a batch). */
  get writeTokens(): number {
    const writeTokens = this.route?.writeTokens
    const parsed = writeTokens === undefined ? null : this.parsed()
    return parsed !== null && parsed.ok ? writeTokens!(parsed.value) : 1
  }

  get contentType(): string {
    return this.request.headers.get('content-type') ?? 'application/json'
  }

  /**
   * Lets go of the body and the command once the actor has applied it (the log holds its own bytes): until
   * the commit they would stay alive (a batch's parsed body is tens of thousands of objects), and every
   * young-generation collection meanwhile would copy them, then promote them for the old generation to collect.
   */
  release(): void {
    this.#parsed = undefined
    this.body = undefined
    this.built = undefined
    this.bytes = undefined
    ;(this.request as { body?: unknown }).body = undefined
  }

  /** The parsed body, parsed once: the fingerprint needs it before the `parse` stage may answer its error. */
  parsed(): ParsedBody | null {
    if (this.#parsed !== undefined) return this.#parsed
    const body = this.request.body
    if (this.route?.body === undefined) return null
    if (body !== undefined && !Buffer.isBuffer(body)) return (this.#parsed = { ok: true, value: body.value })
    if (this.bytes === null || this.bytes === undefined) return null
    return (this.#parsed = parseBody(this.route, this.bytes, this.contentType, this.request.query))
  }

  /** The `parse` stage's second step: a statement file's statements (or why it cannot be read) in place of the file. */
  parsedAs(parsed: ParsedBody): void {
    this.#parsed = parsed
  }
}

/** A stage goes on (undefined), answers a refusal at once, or halts (answered, or resumes the flow itself later). */
type Step = undefined | Rejection | typeof halted
/** The stage answered, or resumes the flow itself later (the body stage, a statement file's reading). */
const halted = Symbol('halted')

interface Stage {
  readonly name: StageName
  run(flow: Flow, lifecycle: Lifecycle<unknown>): Step
}

export class Lifecycle<T> {
  readonly options: LifecycleOptions
  readonly transport: Transport<T>
  readonly router: Router<LifecycleRoute>
  readonly elsewhere: Router<ElsewhereRoute>
  readonly #stages: readonly Stage[]
  readonly #replyIndex: number

  constructor(options: LifecycleOptions, transport: Transport<T>) {
    this.options = options
    this.transport = transport
    this.router = new Router(options.routes)
    this.elsewhere = new Router(options.elsewhere ?? [])
    this.#stages = stages.filter((stage) => !options.skip.includes(stage.name))
    this.#replyIndex = this.#stages.findIndex((stage) => stage.name === 'reply')
  }

  /** Where `reply` is in this transport's list: a replay found early goes straight there. */
  get replyIndex(): number {
    return this.#replyIndex
  }

  /** A step that threw (a bug, or a shard gone): 503, never a request left hanging. */
  failed(flow: Flow, error: unknown): void {
    this.answer(flow, 503, errorBody(reject('unavailable', `The request could not be completed: ${error instanceof Error ? error.message : String(error)}`)), [])
  }

  /** The names of the stages this transport runs, in order. */
  get stageNames(): readonly StageName[] {
    return this.#stages.map((stage) => stage.name)
  }

  run(request: ApiRequest, target: T): void {
    this.resume(new Flow(request, target), 0)
  }

  /** Runs the stages from `index`; the body stage calls back here once the body is complete. */
  resume(flow: Flow, index: number): void {
    const all = this.#stages
    for (let i = index; i < all.length; i++) {
      flow.next = i + 1
      const step = all[i].run(flow, this as Lifecycle<unknown>)
      if (step === undefined) continue
      if (step === halted) return
      return this.answer(flow, statusOf(step.code), errorBody(step), [])
    }
  }

  /** The methods served on a path no route of this method matched, sorted (HEAD beside GET over HTTP); empty for an unknown path. */
  allowedOn(path: string): string[] {
    return allowOf([...this.router.methodsOf(path), ...this.elsewhere.methodsOf(path)], this.options.headServed === true)
  }

  /** Answers with the rate headers of the caller's bucket (docs/API.md, Rate limits), then any of the answer's own. */
  answer(flow: Flow, status: number, body: string, extra: Headers): void {
    const bucket = flow.bucket
    let headers = extra
    if (bucket !== null) {
      const nowMs = flow.atMs === 0 ? this.options.clock() : flow.atMs
      const rate: (readonly [string, string])[] = [['X-RateLimit-Limit', String(bucket.limitPerMinute)], ['X-RateLimit-Remaining', String(bucket.remaining(nowMs))]]
      headers = extra.length === 0 ? rate : [...rate, ...extra]
    }
    this.transport.respond(flow.target as T, status, body, headers)
  }

  /** A streamed answer (an export): its content type and headers after the rate headers, then its chunks. */
  stream(flow: Flow, answer: StreamedAnswer): void {
    const bucket = flow.bucket
    const rate: [string, string][] = bucket === null ? [] : [['X-RateLimit-Limit', String(bucket.limitPerMinute)], ['X-RateLimit-Remaining', String(bucket.remaining(flow.atMs))]]
    const headers: Headers = [...rate, ['content-type', answer.contentType], ...answer.headers]
    const pull = pullFrom(answer.source)
    const close = () => answer.source.close()
    if (this.transport.stream !== undefined) return this.transport.stream(flow.target as T, answer.status, headers, pull, close)
    gather(pull, (text, error) => {
      close()
      if (error !== null) return this.answer(flow, 503, errorBody(reject('unavailable', 'The export could not be completed.')), [])
      this.transport.respond(flow.target as T, answer.status, text, headers)
    })
  }
}

/** Every chunk of a streamed answer as one text, for transports that answer in one piece (the embedded Ledger). */
function gather(pull: Pull, done: (text: string, error: Error | null) => void): void {
  const chunks: Buffer[] = []
  const step = (): void => pull((chunk, error) => {
    if (error !== null || chunk === null) return done(Buffer.concat(chunks).toString('utf8'), error)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk)
    setImmediate(step)
  })
  step()
}

/** The body limit a route reads under. */
export function bytesMaxOf(route: LifecycleRoute, options: Pick<LifecycleOptions, 'bodyBytesMax' | 'importBodyBytesMax'>): number {
  return route.body?.limit === 'import' ? options.importBodyBytesMax : options.bodyBytesMax
}

// --- The stages ---------------------------------------------------------------------------------

function routeStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  const { method, path } = flow.request
  const matched = lifecycle.router.match(method, path)
  if (matched === null) {
    const allowed = lifecycle.allowedOn(path)
    if (allowed.length === 0) return reject('not_found', `No route ${method} ${path}.`)
    // A known path: the `method` stage answers, once the caller is authenticated.
    flow.allowed = allowed
    return undefined
  }
  flow.route = matched.route
  flow.params = matched.params
  lifecycle.transport.routed?.(flow.target, matched.route)
  return undefined
}

function authStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  const { authenticate, unauthenticated, buckets, clock } = lifecycle.options
  // A transport that authenticated its caller itself (a WebSocket, by its socket's key) hands it over:
  // the key is checked again here, since the socket may outlive it.
  const handed = flow.caller
  const caller = handed !== null ? (handed.key === null || handed.key.revokedAtMs === null ? handed : null) : authenticate?.(flow.request.headers.get('authorization')) ?? null
  if (caller === null) return unauthenticated ?? reject('unauthenticated')
  flow.caller = caller
  if (buckets !== undefined && caller.workspace !== null) {
    const both = buckets.of(caller.workspace, clock())
    flow.buckets = both
    flow.bucket = flow.request.method === 'GET' ? both.reads : both.writes
  }
  return undefined
}

/** A known path called with a method it does not serve: 405 with Allow (a route served elsewhere: its refusal). */
function methodStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  const allowed = flow.allowed
  if (allowed === null) return undefined
  const { method, path } = flow.request
  const elsewhere = lifecycle.elsewhere.match(method, path)
  if (elsewhere !== null) return elsewhere.route.refusal
  const list = allowed.join(', ')
  lifecycle.answer(flow, 405, errorBody(reject('method_not_allowed', `${path} does not serve ${method}; it serves ${list}.`)), [['Allow', list]])
  return halted
}

function scopeStage(flow: Flow): Step {
  const scope = flow.route!.scope
  const key = flow.caller!.key
  if (scope === undefined || scope === null || key === null || key.scopes.includes(scope)) return undefined
  return reject('scope_missing', `This key lacks the scope ${scope}.`)
}

/**
 * A write whose body is still to be read is charged its first token now, so an exhausted budget answers 429
 * without reading or parsing up to 16 MiB (the `rate` stage settles the rest once the body says how many
 * tokens it takes, or that it is a read). Not when its Idempotency-Key names a stored answer: a replay or a
 * conflict answers before the rate budget (docs/API.md, Conventions) and costs nothing, and only the body tells which.
 */
function budgetStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  const writes = flow.buckets?.writes
  const route = flow.route!
  if (writes === undefined || flow.request.method === 'GET' || route.body === undefined || flow.bytes !== undefined || flow.hasValue) return undefined
  // A body that may be a read (a dry run) draws on the read budget, which only the body tells: it is read
  // first (these are JSON bodies of 1 MiB at most).
  if (route.isRead !== undefined) return undefined
  const nowMs = lifecycle.options.clock()
  // A token taken here from a request whose key names a stored answer goes back at the idempotency stage.
  if (writes.tryTake(nowMs, 1)) {
    flow.tokensTaken = 1
    return undefined
  }
  // Retry-After must name a wait after which the same request passes: a batch (its size unknown yet) passes
  // on a full bucket, whatever its size (edge/rate-limit.ts).
  const allTokens = route.writeTokens !== undefined && route.writeTokensCharge !== 'owe'
  const tokens = allTokens ? Number.MAX_SAFE_INTEGER : 1
  const idempotencyKey = flow.request.headers.get('idempotency-key')
  const lookUp = lifecycle.options.handler.lookUp
  if (idempotencyKey === undefined || !isIdempotencyKey(idempotencyKey) || lookUp === undefined) return rateLimited(flow, lifecycle, writes, tokens, nowMs)
  // The budget is spent, but a replay answers before it: the shard says whether the key names a stored answer.
  // Its answer may come after this turn, and a transport loses what arrives while nobody reads (uWebSockets.js
  // drops body chunks without a reader): the body is read meanwhile.
  readBodyNow(flow, lifecycle)
  const onReply = (reply: Reply): void => {
    if (reply.status === nothingStored) return void rateLimited(flow, lifecycle, writes, tokens, nowMs)
    lifecycle.resume(flow, flow.next)
  }
  const found = lookUp(flow, idempotencyKey, null, nowMs)
  if (found instanceof Promise) found.then(onReply, (error: unknown) => lifecycle.failed(flow, error))
  else onReply(found)
  return halted
}

/** Starts reading the body (the `body` stage waits for it if it is not complete by then). */
function readBodyNow(flow: Flow, lifecycle: Lifecycle<unknown>): void {
  const read = lifecycle.transport.readBody!
  flow.bodyReading = true
  read(flow.target, bytesMaxOf(flow.route!, lifecycle.options), (bytes) => {
    flow.bytes = bytes
    flow.bodyReading = false
    if (!flow.resumeOnBody) return
    flow.resumeOnBody = false
    flow.atMs = lifecycle.options.clock()
    lifecycle.resume(flow, flow.next)
  })
}

/** 429 with Retry-After: the time until a take of `tokens` passes. */
function rateLimited(flow: Flow, lifecycle: Lifecycle<unknown>, bucket: Bucket, tokens: number, nowMs: number): Step {
  lifecycle.options.onRateLimited?.(flow.caller!.workspace!.id, bucket === flow.buckets?.reads ? 'reads' : 'writes')
  const retryAfterSeconds = bucket.retryAfterSeconds(nowMs, tokens)
  lifecycle.answer(flow, 429, errorBody(reject('rate_limited', `Rate budget exhausted; retry after ${retryAfterSeconds} s.`)), [['Retry-After', String(retryAfterSeconds)]])
  return halted
}

/** Gives back what the `budget` stage took (the request turned out a replay, a conflict or a read, or takes more). */
function giveBackPrepaid(flow: Flow): void {
  if (flow.tokensTaken === 0) return
  flow.buckets!.writes.giveBack(flow.atMs, flow.tokensTaken)
  flow.tokensTaken = 0
}

/** Waits for the whole body; the clock is read once it is complete, for the command's at_ms. */
function bodyStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  const route = flow.route!
  if (route.body === undefined || flow.bytes !== undefined || flow.hasValue) {
    flow.atMs = lifecycle.options.clock()
    return undefined
  }
  if (lifecycle.transport.readBody === undefined) {
    flow.bytes = Buffer.alloc(0)
    flow.atMs = lifecycle.options.clock()
    return undefined
  }
  if (!flow.bodyReading) readBodyNow(flow, lifecycle)
  // Complete already (the reader may call back at once): on with it.
  if (flow.bytes !== undefined) {
    flow.atMs = lifecycle.options.clock()
    return undefined
  }
  flow.resumeOnBody = true
  return halted
}

/** A body can take long to arrive: a key revoked meanwhile must not write (it was checked before the body). */
function recheckStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  const key = flow.caller?.key ?? null
  if (key === null || key.revokedAtMs === null) return undefined
  flow.bucket = null
  return lifecycle.options.unauthenticated ?? reject('unauthenticated')
}

function idempotencyStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  const { request } = flow
  const idempotencyKey = flow.isRead ? undefined : request.headers.get('idempotency-key')
  if (idempotencyKey === undefined) return undefined
  // A malformed key is a header schema failure: it answers at the schema step, after rate, size and JSON.
  if (!isIdempotencyKey(idempotencyKey)) {
    flow.idempotencyKeyInvalid = true
    return undefined
  }
  // Only a JSON body is parsed for its fingerprint; any other is fingerprinted by its bytes (a statement file is not read twice).
  const parsed = flow.hasValue || isJsonBody(flow.route!, flow.contentType, flow.bytes ?? null, request.query) ? flow.parsed() : null
  const print = parsed !== null && parsed.ok
    ? fingerprint(request.method, request.path, { json: parsed.value })
    : fingerprint(request.method, request.path, { bytes: flow.bytes ?? Buffer.from('\u0000too-large') })
  const found = lifecycle.options.handler.lookUp!(flow, idempotencyKey, print, flow.atMs)
  if (!(found instanceof Promise)) return keyLookedUp(flow, lifecycle, found, idempotencyKey, print)
  found.then((reply) => {
    if (keyLookedUp(flow, lifecycle, reply, idempotencyKey, print) === undefined) lifecycle.resume(flow, flow.next)
  }, (error: unknown) => lifecycle.failed(flow, error))
  return halted
}

/** What the shard said of the key: nothing stored (the flow goes on, undefined), or a replay or a conflict (answered: halted). */
function keyLookedUp(flow: Flow, lifecycle: Lifecycle<unknown>, reply: Reply, idempotencyKey: string, print: string): Step {
  if (reply.status === nothingStored) {
    // Looked up again where the command is applied (its shard stores the answer in that same step): a
    // request with this key may be on its way meanwhile.
    flow.idempotency = { key: idempotencyKey, fingerprint: print }
    return undefined
  }
  giveBackPrepaid(flow)
  flow.reply = reply
  lifecycle.resume(flow, lifecycle.replyIndex)
  return halted
}

function rateStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  const isRead = flow.isRead
  if (flow.buckets !== null) flow.bucket = isRead ? flow.buckets.reads : flow.buckets.writes
  const bucket = flow.bucket
  if (bucket === null) return undefined
  const tokens = isRead ? 1 : flow.writeTokens
  // The one write token the budget stage took is the whole charge of most writes; a read or a batch is
  // charged afresh (all or none), what was taken given back first.
  if (flow.tokensTaken === tokens && !isRead) return undefined
  giveBackPrepaid(flow)
  const mayOwe = !isRead && flow.route!.writeTokensCharge === 'owe'
  if (bucket.tryTake(flow.atMs, tokens, mayOwe)) {
    flow.tokensTaken = tokens
    return undefined
  }
  return rateLimited(flow, lifecycle, bucket, mayOwe ? 1 : tokens, flow.atMs)
}

function sizeStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  if (flow.route!.body === undefined) return undefined
  const byteLength = flow.hasValue ? (flow.request.body as { byteLength?: number }).byteLength : undefined
  if (flow.bytes !== null && (byteLength === undefined || byteLength <= bytesMaxOf(flow.route!, lifecycle.options))) return undefined
  return reject('body_too_large', `The body exceeds ${bytesMaxOf(flow.route!, lifecycle.options)} bytes.`)
}

/**
 * The body parsed. A statement file is read here too, in the worker thread (statement-worker-pool.ts):
 * the stage halts, then runs again on the statements (or statement_invalid, statement_unbalanced), so the
 * handler receives them, never an unread file.
 */
function parseStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  const parsed = flow.parsed()
  if (parsed === null) return undefined
  if (!parsed.ok) return parsed
  if (!(parsed.value instanceof StatementFile)) return undefined
  // A bad query parameter (?format= among them) and a malformed Idempotency-Key answer before the file's
  // own errors (docs/API.md, Conventions): the `query` and `schema` stages answer them next, the file unread.
  const query = queryValuesOf(flow.route!.query ?? [], flow.request.query)
  if (!query.ok || flow.idempotencyKeyInvalid) return undefined
  const again = flow.next - 1
  readStatementFile(parsed.value, declaredFormatOf(query.value)).then((read) => {
    flow.parsedAs(read)
    lifecycle.resume(flow, again)
  }, (error: unknown) => lifecycle.failed(flow, error))
  return halted
}

/**
 * The query string against the route's declared parameters (query.ts, queryValuesOf): the first bad one
 * answers 400, else the handler gets their values. After JSON and before the rest of the schema step
 * (docs/API.md, Conventions): the Idempotency-Key's syntax, then the body's schema.
 */
function queryStage(flow: Flow): Step {
  const values = queryValuesOf(flow.route!.query ?? [], flow.request.query)
  if (!values.ok) return values
  flow.query = values.value
  return undefined
}

function schemaStage(flow: Flow): Step {
  if (flow.idempotencyKeyInvalid) {
    return reject('request_invalid', 'Idempotency-Key must be 1 to 255 printable ASCII characters.', [{ path: '/headers/idempotency-key', message: 'must be 1 to 255 printable ASCII characters' }])
  }
  const body = flow.route!.body
  const parsed = flow.parsed()
  if (body === undefined || parsed === null || !parsed.ok) return undefined
  const valid = body.validate(parsed.value)
  if (!valid.ok) return valid
  flow.body = valid.value
  return undefined
}

/** A handler may build later (a statement import's inputs are hashed a slice per turn): the flow resumes when it has. */
function commandStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  const built = lifecycle.options.handler.build(flow)
  if (!(built instanceof Promise)) {
    flow.built = built
    return undefined
  }
  built.then((value: unknown) => {
    flow.built = value
    lifecycle.resume(flow, flow.next)
  }, (error: unknown) => {
    flow.built = reject('unavailable', `The request could not be prepared: ${error instanceof Error ? error.message : String(error)}`)
    lifecycle.resume(flow, flow.next)
  })
  return halted
}

/** The operation goes to the workspace's shard, which answers once the log is durable up to what the answer rests on. */
function actorStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  const built = flow.built
  // Lets go of the body and the command as soon as the shard has them (the log holds their bytes).
  flow.release()
  const executed = lifecycle.options.handler.execute(flow, built)
  // Answered at once (a read with no write in flight): on to the reply in this turn.
  if (!(executed instanceof Promise)) {
    flow.reply = executed
    return undefined
  }
  executed.then((reply) => {
    flow.reply = reply
    lifecycle.resume(flow, flow.next)
  }, (error: unknown) => lifecycle.failed(flow, error))
  return halted
}

function replyStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  const reply = flow.reply!
  if (reply instanceof StreamedAnswer) {
    lifecycle.stream(flow, reply)
    return halted
  }
  // The Idempotency-Key named a stored answer after all (a request with it applied since the idempotency stage): its tokens go back.
  if (reply.keyReplayed === true && flow.tokensTaken > 0) {
    flow.bucket?.giveBack(flow.atMs, flow.tokensTaken)
    flow.tokensTaken = 0
  }
  lifecycle.answer(flow, reply.status, reply.body, reply.headers)
  return halted
}

/** The one list. Its order is the contract's (docs/API.md, Conventions): change it only with the contract. */
const stages: readonly Stage[] = [
  { name: 'route', run: routeStage },
  { name: 'auth', run: authStage },
  { name: 'method', run: methodStage },
  { name: 'scope', run: scopeStage },
  { name: 'budget', run: budgetStage },
  { name: 'body', run: bodyStage },
  { name: 'recheck', run: recheckStage },
  { name: 'idempotency', run: idempotencyStage },
  { name: 'rate', run: rateStage },
  { name: 'size', run: sizeStage },
  { name: 'parse', run: parseStage },
  { name: 'query', run: queryStage },
  { name: 'schema', run: schemaStage },
  { name: 'command', run: commandStage },
  { name: 'actor', run: actorStage },
  { name: 'reply', run: replyStage },
]
