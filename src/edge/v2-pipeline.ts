/** @module HTTP's side of the request lifecycle (src/api/lifecycle.ts): an exchange in, (status, body, headers) out, bodies streamed from uWS. */

import { Lifecycle, type ElsewhereRoute, type RateBudgets, type Transport } from '../api/lifecycle.js'
import { adminSurface, v2Surface } from '../api/surfaces.js'
import { errorBody, reject, statusOf, type Rejection } from '../errors.js'
import { readBody, send, sendStream, type Exchange } from './http.js'
import type { Shard } from '../shard/operation.js'

export interface HttpLifecycleOptions {
  readonly shard: Shard
  readonly adminToken: string
  readonly buckets: RateBudgets
  readonly clock: () => number
  readonly bodyBytesMax: number
  readonly importBodyBytesMax: number
  /** Called for each 429 (metrics). */
  readonly onRateLimited?: (workspace: string, bucket: 'reads' | 'writes') => void
}

export function sendRejection(exchange: Exchange, rejection: Rejection, headers: readonly (readonly [string, string])[]): void {
  send(exchange, statusOf(rejection.code), errorBody(rejection), headers)
}

const httpTransport: Transport<Exchange> = {
  respond: send,
  routed: (exchange, route) => { exchange.route = route },
  readBody: (exchange, bytesMax, done) => readBody(exchange, bytesMax, (body) => done(body.bytes)),
  stream: sendStream,
}

/** GET /v2/stream is the WebSocket upgrade (uWS answers it before the lifecycle): a GET without the upgrade comes here. */
const streamUpgrade: ElsewhereRoute = {
  method: 'GET', pattern: '/v2/stream',
  refusal: reject('request_invalid', 'GET /v2/stream opens a WebSocket: send Connection: Upgrade and Upgrade: websocket.', [{ path: '/headers/upgrade', message: 'must be websocket' }]),
}

/** /v2 runs every stage; admin has no scope, idempotency or rate budget (docs/API.md, Admin API). */
export function httpLifecycles(options: HttpLifecycleOptions): { readonly v2: Lifecycle<Exchange>; readonly admin: Lifecycle<Exchange> } {
  const { shard, clock, bodyBytesMax, importBodyBytesMax } = options
  const limits = { clock, bodyBytesMax, importBodyBytesMax }
  return {
    v2: new Lifecycle({ ...v2Surface(shard), ...limits, skip: [], buckets: options.buckets, onRateLimited: options.onRateLimited, headServed: true, elsewhere: [streamUpgrade] }, httpTransport),
    admin: new Lifecycle({ ...adminSurface(shard, options.adminToken), ...limits, skip: ['scope', 'budget', 'idempotency', 'rate'], headServed: true }, httpTransport),
  }
}
