/**
 * @module The request lifecycle as data: one ordered list of named stages that every transport runs
 * (HTTP /v2 and /admin, the embedded Ledger, WebSocket requests). A transport turns its request into an
 * ApiRequest and receives (status, body, headers); it configures which stages do not apply to it by
 * name (in-process there is no key to check and no rate budget), never by a copy of the list.
 * docs/ARCHITECTURE.md, "The request lifecycle", documents each stage and the status it fails with.
 */

import type { Submitted } from '../actor/completion.js'
import type { WorkspaceActor } from '../actor/workspace-actor.js'
import { errorBody, reject, statusOf, type Rejection } from '../errors.js'
import type { IdempotencyRecord } from '../ledger/state.js'
import type { KeyRecord, WorkspaceRecord } from '../ledger/system.js'
import { isJsonBody, parseBody, type ParsedBody } from './body.js'
import { fingerprint, isIdempotencyKey } from './idempotency.js'
import type { LabeledRoute, LifecycleRoute } from './route.js'
import { Router } from './router.js'

/** The stages, in the order they run; CONTRACT.md 1 fixes the order in which their errors answer. */
export const stageNames = ['route', 'auth', 'scope', 'body', 'recheck', 'idempotency', 'rate', 'size', 'parse', 'schema', 'command', 'actor', 'reply'] as const
export type StageName = (typeof stageNames)[number]

export type Headers = readonly (readonly [string, string])[]

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
   * The body in hand: its bytes, or a value already parsed (the embedded Ledger, a WebSocket message).
   * Absent: the transport streams it (Transport.readBody) once the stages before `body` passed.
   */
  readonly body?: Buffer | { readonly value: unknown }
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
}

/** A rate bucket as the `rate` stage uses it (edge/rate-limit.ts's TokenBucket). */
export interface Bucket {
  readonly limitPerMinute: number
  remaining(nowMs: number): number
  tryTake(nowMs: number): boolean
  retryAfterSeconds(nowMs: number): number
}

export interface RateBudgets {
  of(workspace: WorkspaceRecord, nowMs: number): { readonly reads: Bucket; readonly writes: Bucket }
}

/** What differs between the route kinds: how the handler is called and who executes what it built. */
export interface Handler {
  /** The `command` stage: the handler's context and call; a Rejection is a refusal of the request's shape. */
  build(flow: Flow): unknown
  /** The `actor` stage: what was built, executed (or a refusal answered) at the actor's barrier. */
  execute(flow: Flow, built: unknown): Submitted
  /** The actor that keeps the caller's idempotency records (the `idempotency` stage). */
  actorOf?(flow: Flow): WorkspaceActor
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
  /** The log failed: the process must stop and recover from the log. */
  readonly onLogFailure: (error: Error) => void
  readonly onRateLimited?: (workspace: string, bucket: 'reads' | 'writes') => void
}

/** One request on its way through the stages: one object per request, no closure per stage. */
export class Flow {
  readonly request: ApiRequest
  readonly target: unknown
  route: LifecycleRoute | null = null
  params: Readonly<Record<string, string>> = {}
  caller: Caller | null
  bucket: Bucket | null = null
  /** undefined until in hand; null when over the route's limit. */
  bytes: Buffer | null | undefined
  #parsed: ParsedBody | undefined
  body: unknown = undefined
  atMs = 0
  idempotency: { key: string; fingerprint: string } | undefined = undefined
  idempotencyKeyInvalid = false
  replayed: IdempotencyRecord | null = null
  /** The caller's workspace actor, once a stage needed it. */
  actor: WorkspaceActor | null = null
  built: unknown = undefined
  completion: Submitted | null = null
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

  get contentType(): string {
    return this.request.headers.get('content-type') ?? 'application/json'
  }

  /** The parsed body, parsed once: the fingerprint needs it before the `parse` stage may answer its error. */
  parsed(): ParsedBody | null {
    if (this.#parsed !== undefined) return this.#parsed
    const body = this.request.body
    if (this.route?.body === undefined) return null
    if (body !== undefined && !Buffer.isBuffer(body)) return (this.#parsed = { ok: true, value: body.value })
    if (this.bytes === null || this.bytes === undefined) return null
    return (this.#parsed = parseBody(this.route, this.bytes, this.contentType))
  }
}

/** A stage goes on (undefined), answers a refusal at once, halts (answered, or waits for the body), or hands over to the reply. */
type Step = undefined | Rejection | typeof halted | typeof toReply
/** The stage answered, or resumes the flow itself later (the body stage). */
const halted = Symbol('halted')
const toReply = Symbol('toReply')

interface Stage {
  readonly name: StageName
  run(flow: Flow, lifecycle: Lifecycle<unknown>): Step
}

export class Lifecycle<T> {
  readonly options: LifecycleOptions
  readonly transport: Transport<T>
  readonly router: Router<LifecycleRoute>
  readonly #stages: readonly Stage[]
  readonly #replyIndex: number

  constructor(options: LifecycleOptions, transport: Transport<T>) {
    this.options = options
    this.transport = transport
    this.router = new Router(options.routes)
    this.#stages = stages.filter((stage) => !options.skip.includes(stage.name))
    this.#replyIndex = this.#stages.findIndex((stage) => stage.name === 'reply')
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
      if (step === toReply) return this.resume(flow, this.#replyIndex)
      return this.answer(flow, statusOf(step.code), errorBody(step), null)
    }
  }

  /** Answers with the rate headers of the caller's bucket (CONTRACT.md 6), then any of the answer's own. */
  answer(flow: Flow, status: number, body: string, extra: readonly [string, string] | null): void {
    const bucket = flow.bucket
    let headers: Headers = extra === null ? [] : [extra]
    if (bucket !== null) {
      const nowMs = flow.atMs === 0 ? this.options.clock() : flow.atMs
      const rate: [string, string][] = [['X-RateLimit-Limit', String(bucket.limitPerMinute)], ['X-RateLimit-Remaining', String(bucket.remaining(nowMs))]]
      headers = extra === null ? rate : [...rate, extra]
    }
    this.transport.respond(flow.target as T, status, body, headers)
  }
}

/** The body limit a route reads under. */
export function bytesMaxOf(route: LifecycleRoute, options: Pick<LifecycleOptions, 'bodyBytesMax' | 'importBodyBytesMax'>): number {
  return route.body?.limit === 'import' ? options.importBodyBytesMax : options.bodyBytesMax
}

// --- The stages ---------------------------------------------------------------------------------

function routeStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  const { method, path } = flow.request
  const matched = lifecycle.router.match(method, path)
  if (matched === null) return reject('not_found', `No route ${method} ${path}.`)
  flow.route = matched.route
  flow.params = matched.params
  lifecycle.transport.routed?.(flow.target, matched.route)
  return undefined
}

function authStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  const { authenticate, unauthenticated, buckets, clock } = lifecycle.options
  const caller = authenticate?.(flow.request.headers.get('authorization')) ?? null
  if (caller === null) return unauthenticated ?? reject('unauthenticated')
  flow.caller = caller
  if (buckets !== undefined && caller.workspace !== null) {
    const both = buckets.of(caller.workspace, clock())
    flow.bucket = flow.request.method === 'GET' ? both.reads : both.writes
  }
  return undefined
}

function scopeStage(flow: Flow): Step {
  const scope = flow.route!.scope
  const key = flow.caller!.key
  if (scope === undefined || key === null || key.scopes.includes(scope)) return undefined
  return reject('scope_missing', `This key lacks the scope ${scope}.`)
}

/** Waits for the whole body; the clock is read once it is complete, for the command's at_ms. */
function bodyStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  const route = flow.route!
  if (route.body === undefined || flow.bytes !== undefined || flow.hasValue) {
    flow.atMs = lifecycle.options.clock()
    return undefined
  }
  const read = lifecycle.transport.readBody
  if (read === undefined) {
    flow.bytes = Buffer.alloc(0)
    flow.atMs = lifecycle.options.clock()
    return undefined
  }
  read(flow.target, bytesMaxOf(route, lifecycle.options), (bytes) => {
    flow.bytes = bytes
    flow.atMs = lifecycle.options.clock()
    lifecycle.resume(flow, flow.next)
  })
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
  const idempotencyKey = request.method === 'GET' ? undefined : request.headers.get('idempotency-key')
  if (idempotencyKey === undefined) return undefined
  // A malformed key is a header schema failure: it answers at the schema step, after rate, size and JSON.
  if (!isIdempotencyKey(idempotencyKey)) {
    flow.idempotencyKeyInvalid = true
    return undefined
  }
  const parsed = flow.parsed()
  const print = parsed !== null && parsed.ok && (flow.hasValue || isJsonBody(flow.route!, flow.contentType, flow.bytes ?? null))
    ? fingerprint(request.method, request.path, { json: parsed.value })
    : fingerprint(request.method, request.path, { bytes: flow.bytes ?? Buffer.from('\u0000too-large') })
  const key = flow.caller!.key
  const actor = lifecycle.options.handler.actorOf!(flow)
  const found = actor.idempotency(idempotencyKey, key?.id ?? '', key?.accounts ?? null, flow.atMs)
  if (found.record === undefined) {
    flow.idempotency = { key: found.storeKey, fingerprint: print }
    return undefined
  }
  if (found.record.fingerprint !== print) return reject('idempotency_conflict')
  flow.replayed = found.record
  flow.completion = actor.answer({ ok: true, status: found.record.status, body: null })
  return toReply
}

function rateStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  const bucket = flow.bucket
  if (bucket === null || bucket.tryTake(flow.atMs)) return undefined
  const method = flow.request.method
  lifecycle.options.onRateLimited?.(flow.caller!.workspace!.id, method === 'GET' ? 'reads' : 'writes')
  const retryAfterSeconds = bucket.retryAfterSeconds(flow.atMs)
  lifecycle.answer(flow, 429, errorBody(reject('rate_limited', `Rate budget exhausted; retry after ${retryAfterSeconds} s.`)), ['Retry-After', String(retryAfterSeconds)])
  return halted
}

function sizeStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  if (flow.route!.body === undefined || flow.bytes !== null) return undefined
  return reject('body_too_large', `The body exceeds ${bytesMaxOf(flow.route!, lifecycle.options)} bytes.`)
}

function parseStage(flow: Flow): Step {
  const parsed = flow.parsed()
  return parsed === null || parsed.ok ? undefined : parsed
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

function commandStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  flow.built = lifecycle.options.handler.build(flow)
  return undefined
}

function actorStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  flow.completion = lifecycle.options.handler.execute(flow, flow.built)
  return undefined
}

/** Nothing leaves before the log is durable up to what the answer rests on; the actor's completion says when. */
function replyStage(flow: Flow, lifecycle: Lifecycle<unknown>): Step {
  const completion = flow.completion!
  completion.whenDurable((error) => {
    if (error !== null) {
      lifecycle.answer(flow, 503, errorBody(reject('unavailable', 'The log could not be written; the service is restarting.')), null)
      return lifecycle.options.onLogFailure(error)
    }
    const replayed = flow.replayed
    if (replayed !== null) return lifecycle.answer(flow, replayed.status, replayed.status === 204 ? '' : replayed.body, ['Replayed', 'true'])
    const { outcome } = completion
    if (!outcome.ok) return lifecycle.answer(flow, statusOf(outcome.code), errorBody(outcome), null)
    lifecycle.answer(flow, outcome.status, outcome.status === 204 ? '' : outcome.json ?? JSON.stringify(outcome.body), null)
  })
  return halted
}

/** The one list. Its order is the contract's (CONTRACT.md 1): change it only with the contract. */
const stages: readonly Stage[] = [
  { name: 'route', run: routeStage },
  { name: 'auth', run: authStage },
  { name: 'scope', run: scopeStage },
  { name: 'body', run: bodyStage },
  { name: 'recheck', run: recheckStage },
  { name: 'idempotency', run: idempotencyStage },
  { name: 'rate', run: rateStage },
  { name: 'size', run: sizeStage },
  { name: 'parse', run: parseStage },
  { name: 'schema', run: schemaStage },
  { name: 'command', run: commandStage },
  { name: 'actor', run: actorStage },
  { name: 'reply', run: replyStage },
]
