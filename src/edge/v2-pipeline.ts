/** @module The /v2 request lifecycle: route, authenticate, scope, idempotency, rate budget, body, schema, actor. */

import type { Runtime } from '../actor/runtime.js'
import type { Submitted } from '../actor/workspace-actor.js'
import { errorBody, reject, statusOf, type Rejection } from '../errors.js'
import { findIdempotency } from '../ledger/idempotency.js'
import type { KeyRecord } from '../ledger/system.js'
import { authenticate, hasScope } from './auth.js'
import { bodyFormatOf } from './body-format.js'
import { readBody, send, type Exchange } from './http.js'
import { fingerprint, isIdempotencyKey } from './idempotency.js'
import { parseJson } from './json.js'
import type { RateBuckets } from './rate-buckets.js'
import type { V2Route } from './route.js'
import type { Router } from './router.js'
import type { TokenBucket } from './rate-limit.js'

export interface V2Request {
  readonly method: string
  readonly path: string
  readonly query: string
  readonly headers: ReadonlyMap<string, string>
}

export interface V2Dependencies {
  readonly runtime: Runtime
  readonly router: Router<V2Route>
  readonly buckets: RateBuckets
  readonly clock: () => number
  readonly bodyBytesMax: number
  /** Called when the log failed: the process must stop and recover from the log. */
  readonly onLogFailure: (error: Error) => void
  /** Called for each 429 (metrics). */
  readonly onRateLimited?: (workspace: string, bucket: 'reads' | 'writes') => void
}

type Headers = [string, string][]

function rateHeaders(bucket: TokenBucket, nowMs: number): Headers {
  return [['X-RateLimit-Limit', String(bucket.limitPerMinute)], ['X-RateLimit-Remaining', String(bucket.remaining(nowMs))]]
}

export function sendRejection(exchange: Exchange, rejection: Rejection, headers: Headers): void {
  send(exchange, statusOf(rejection.code), errorBody(rejection), headers)
}

/** Sends once the log is durable up to the barrier: no answer rests on a write a crash could take back. */
function sendWhenDurable(deps: V2Dependencies, exchange: Exchange, barrierSeq: number, status: number, body: string, headers: Headers): void {
  deps.runtime.log.afterDurable(barrierSeq, (error) => {
    if (error === null) return send(exchange, status, body, headers)
    sendRejection(exchange, reject('unavailable', 'The log could not be written; the service is restarting.'), headers)
    deps.onLogFailure(error)
  })
}

export function handleV2(deps: V2Dependencies, exchange: Exchange, request: V2Request): void {
  const matched = deps.router.match(request.method, request.path)
  if (matched === null) return sendRejection(exchange, reject('not_found', `No route ${request.method} ${request.path}.`), [])
  exchange.route = matched.route
  const key = authenticate(deps.runtime.system, request.headers.get('authorization'))
  if (key === null) return sendRejection(exchange, reject('unauthenticated'), [])
  const workspace = deps.runtime.system.workspaces.get(key.workspace)
  if (workspace === undefined) return sendRejection(exchange, reject('unauthenticated'), [])
  const buckets = deps.buckets.of(workspace, deps.clock())
  const bucket = request.method === 'GET' ? buckets.reads : buckets.writes
  const { route, params } = matched
  if (!hasScope(key, route.scope)) {
    return sendRejection(exchange, reject('scope_missing', `This key lacks the scope ${route.scope}.`), rateHeaders(bucket, deps.clock()))
  }
  const proceed = (bytes: Buffer | null) => afterBody(deps, exchange, request, { route, params, key, bucket }, bytes)
  if (route.body === undefined) return proceed(Buffer.alloc(0))
  readBody(exchange, route.body.bytesMax ?? deps.bodyBytesMax, ({ bytes }) => proceed(bytes))
}

interface Resolved {
  readonly route: V2Route
  readonly params: Readonly<Record<string, string>>
  readonly key: KeyRecord
  readonly bucket: TokenBucket
}

type ParsedBody = { ok: true; value: unknown } | Rejection | null

function isJsonBody(route: V2Route, contentType: string, bytes: Buffer | null): boolean {
  return route.body?.parse === undefined || bodyFormatOf(contentType, bytes) === 'json'
}

function parseBody(route: V2Route, bytes: Buffer | null, contentType: string): ParsedBody {
  if (route.body === undefined || bytes === null) return null
  if (route.body.parse !== undefined && !isJsonBody(route, contentType, bytes)) return route.body.parse(bytes, contentType)
  return parseJson(bytes)
}

function afterBody(deps: V2Dependencies, exchange: Exchange, request: V2Request, resolved: Resolved, bytes: Buffer | null): void {
  const { route, key, bucket } = resolved
  const actor = deps.runtime.actor(key.workspace)
  const atMs = deps.clock()
  const contentType = request.headers.get('content-type') ?? 'application/json'
  const parsed = parseBody(route, bytes, contentType)
  let idempotency: { key: string; fingerprint: string } | undefined
  const idempotencyKey = request.method === 'POST' ? request.headers.get('idempotency-key') : undefined
  // A malformed key is a header schema failure: it answers at the schema step, after rate, size and JSON.
  const keyInvalid = idempotencyKey !== undefined && !isIdempotencyKey(idempotencyKey)
  if (idempotencyKey !== undefined && !keyInvalid) {
    const print = fingerprint(request.method, request.path, parsed !== null && parsed.ok && isJsonBody(route, contentType, bytes) ? { json: parsed.value } : { bytes: bytes ?? Buffer.from('\u0000too-large') })
    const stored = findIdempotency(actor.state, idempotencyKey, atMs)
    if (stored !== undefined) {
      if (stored.fingerprint !== print) return sendRejection(exchange, reject('idempotency_conflict'), rateHeaders(bucket, atMs))
      return sendWhenDurable(deps, exchange, actor.lastAppliedSeq, stored.status, stored.body, [...rateHeaders(bucket, atMs), ['Replayed', 'true']])
    }
    idempotency = { key: idempotencyKey, fingerprint: print }
  }
  if (!bucket.tryTake(atMs)) {
    deps.onRateLimited?.(key.workspace, request.method === 'GET' ? 'reads' : 'writes')
    const retryAfterSeconds = bucket.retryAfterSeconds(atMs)
    return sendRejection(exchange, reject('rate_limited', `Rate budget exhausted; retry after ${retryAfterSeconds} s.`), [...rateHeaders(bucket, atMs), ['Retry-After', String(retryAfterSeconds)]])
  }
  const headers = rateHeaders(bucket, atMs)
  if (route.body !== undefined && bytes === null) return sendRejection(exchange, reject('body_too_large', `The body exceeds ${route.body.bytesMax ?? deps.bodyBytesMax} bytes.`), headers)
  if (parsed !== null && !parsed.ok) return sendRejection(exchange, parsed, headers)
  if (keyInvalid) {
    return sendRejection(exchange, reject('request_invalid', 'Idempotency-Key must be 1 to 255 printable ASCII characters.', [{ path: '/headers/idempotency-key', message: 'must be 1 to 255 printable ASCII characters' }]), headers)
  }
  let body: unknown
  if (route.body !== undefined && parsed !== null) {
    const valid = route.body.validate(parsed.value)
    if (!valid.ok) return sendRejection(exchange, valid, headers)
    body = valid.value
  }
  const envelope = { at_ms: atMs, key_id: key.id, visibility: key.accounts, ...(idempotency === undefined ? {} : { idempotency }) }
  const workspace = deps.runtime.system.workspaces.get(key.workspace)!
  const result = route.handle({ params: resolved.params, query: new URLSearchParams(request.query), body, key, workspace, actor, atMs, envelope })
  answer(deps, exchange, result, headers, actor.lastAppliedSeq)
}

function answer(deps: V2Dependencies, exchange: Exchange, result: Submitted | Rejection, headers: Headers, barrierSeq: number): void {
  if ('ok' in result) return sendWhenDurable(deps, exchange, barrierSeq, statusOf(result.code), errorBody(result), headers)
  const { outcome } = result
  if (!outcome.ok) return sendWhenDurable(deps, exchange, result.barrierSeq, statusOf(outcome.code), errorBody(outcome), headers)
  const body = outcome.status === 204 ? '' : JSON.stringify(outcome.body)
  sendWhenDurable(deps, exchange, result.barrierSeq, outcome.status, body, headers)
}
