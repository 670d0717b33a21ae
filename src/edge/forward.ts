/**
 * @module Cluster mode's forwarding (docs/API.md, "Cluster mode"): a request for a shard another node owns goes to
 * that node's NODE_URL with its method, path, query, the headers that matter (Authorization, Idempotency-Key,
 * Content-Type, Request-Id) and body, and the owner's answer is relayed as it came. While no node serves the shard
 * (a takeover under way) the answer is 503 `unavailable` with Retry-After. A forwarded request carries
 * Trueup-Forwarded and is never forwarded again, so two nodes that disagree for a moment cannot bounce it.
 */

import http from 'node:http'
import { authenticate } from '../api/auth.js'
import { reject } from '../errors.js'
import type { SystemState } from '../ledger/system.js'
import { shardOf } from '../shard/placement.js'
import { readBody, send, type Exchange } from './http.js'
import { sendRejection } from './v2-pipeline.js'

/** Where a request goes, as the node holding the shard's replica says (src/cluster/shard-replica.ts). */
export type ClusterRoute =
  | { readonly kind: 'local' }
  | { readonly kind: 'forward'; readonly url: string }
  | { readonly kind: 'unavailable'; readonly reason: string }

export interface Forwarding {
  /** Where a request goes now; `forwarded` when another node already forwarded it here. */
  route(forwarded: boolean, request: IncomingRequest): ClusterRoute
  /** Where the requests of a workspace go now (a WebSocket session is served only where its workspace is). */
  routeOfWorkspace(workspace: string): ClusterRoute
  /** This node's id, sent in Trueup-Forwarded. */
  readonly nodeId: string
}

/** SHARDS > 1 in cluster mode: each worker shard's route and the registry's (src/shard/shard-set.ts). */
export interface ShardRoutes {
  /** The registry's system state as this node holds it (served, or followed from its owner): keys to authenticate. */
  readonly system: SystemState
  readonly shards: { readonly length: number }
  routeOf(index: number, forwarded: boolean): ClusterRoute
  registryRoute(forwarded: boolean): ClusterRoute
}

/**
 * SHARDS > 1: an admin request goes where the registry (workspaces, keys) is served; a /v2 request where the shard of
 * its key's workspace is (the key authenticated here, as the lifecycle will again on the node that answers). A key
 * this node does not know goes to the registry's owner when another node serves it: the key may be new there and not
 * yet followed here, and a key unknown there too is answered 401 by it.
 */
export function forwardingByShard(nodeId: string, routes: ShardRoutes): Forwarding {
  return {
    nodeId,
    route: (forwarded, request) => {
      if (request.path.startsWith('/admin/')) return routes.registryRoute(forwarded)
      const key = authenticate(routes.system, request.headers.get('authorization'))
      if (key !== null) return routes.routeOf(shardOf(key.workspace, routes.shards.length), forwarded)
      return routes.registryRoute(forwarded)
    },
    routeOfWorkspace: (workspace) => routes.routeOf(shardOf(workspace, routes.shards.length), false),
  }
}

/** The header that marks a forwarded request (its value: the forwarding node's id). */
export const forwardedHeader = 'trueup-forwarded'
/** How long the owner may take to answer a forwarded request, in ms: past it, 503 (an import may take long). */
export const forwardTimeoutMs = 60_000
/** A takeover settles within a lease or two. */
const retryAfter = [['Retry-After', '1']] as const
/**
 * Connections to the owners, kept open between requests: node:http rather than fetch, whose WHATWG streams, Request
 * clones and abort signals cost a standby more CPU per forwarded write than the owner spends answering it.
 */
const ownerAgent = new http.Agent({ keepAlive: true, scheduling: 'lifo' })
/** Request headers passed on (those the API reads). */
const passedHeaders = ['authorization', 'idempotency-key', 'content-type', 'request-id'] as const
/** Answer headers relayed (besides Content-Type, which send writes, and Request-Id, this exchange's own). */
const relayedHeaders = ['retry-after', 'replayed', 'trueup-warning', 'location', 'allow', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'content-disposition', 'etag'] as const

export interface IncomingRequest {
  readonly path: string
  readonly query: string
  readonly headers: ReadonlyMap<string, string>
}

/** True when the request is not this node's to serve: forwarded to the shard's owner, or answered 503. */
export function answeredElsewhere(forwarding: Forwarding, exchange: Exchange, request: IncomingRequest, bodyBytesMax: number): boolean {
  const target = forwarding.route(request.headers.has(forwardedHeader), request)
  if (target.kind === 'local') return false
  if (target.kind === 'unavailable') answerUnavailable(exchange, target.reason)
  else forward(exchange, { ...request, url: target.url }, forwarding.nodeId, bodyBytesMax)
  return true
}

export interface ForwardedRequest {
  readonly url: string
  readonly path: string
  readonly query: string
  readonly headers: ReadonlyMap<string, string>
}

/** Answers 503 for a shard no node serves now. */
export function answerUnavailable(exchange: Exchange, reason: string): void {
  sendRejection(exchange, reject('unavailable', reason), retryAfter)
}

/** Reads the body (bodyBytesMax at most), sends the request to the owner and relays its answer; 503 when it does not answer. */
export function forward(exchange: Exchange, request: ForwardedRequest, nodeId: string, bodyBytesMax: number): void {
  if (exchange.method === 'GET' || exchange.method === 'HEAD') return void relay(exchange, request, nodeId, null)
  readBody(exchange, bodyBytesMax, ({ bytes }) => {
    if (bytes === null) return sendRejection(exchange, reject('body_too_large', `The request body is over ${bodyBytesMax} bytes.`), [])
    void relay(exchange, request, nodeId, bytes)
  })
}

interface OwnerAnswer {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
}

/** One request to the owner on a kept-alive connection; rejects when it does not answer within forwardTimeoutMs. */
function ask(target: string, method: string, headers: Record<string, string>, body: Buffer | null): Promise<OwnerAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(target, { method, headers, agent: ownerAgent, timeout: forwardTimeoutMs }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 502, headers: response.headers, body: Buffer.concat(chunks) }))
      response.on('error', reject)
    })
    request.on('timeout', () => request.destroy(new Error(`the owner did not answer within ${forwardTimeoutMs} ms`)))
    request.on('error', reject)
    request.end(body ?? undefined)
  })
}

async function relay(exchange: Exchange, request: ForwardedRequest, nodeId: string, body: Buffer | null): Promise<void> {
  const headers: Record<string, string> = { [forwardedHeader]: nodeId }
  for (const name of passedHeaders) {
    const value = request.headers.get(name)
    if (value !== undefined) headers[name] = value
  }
  if (body !== null) headers['content-length'] = String(body.length)
  const target = `${request.url.replace(/\/+$/, '')}${request.path}${request.query === '' ? '' : `?${request.query}`}`
  let answer: OwnerAnswer
  try {
    answer = await ask(target, exchange.method, headers, body)
  } catch {
    // The owner gone (killed, paused, unreachable): the request may or may not have been carried out there, as
    // with any 503; retried with its Idempotency-Key, it is answered as the first attempt was.
    return answerUnavailable(exchange, 'The node that owns the shard of this request did not answer; retry shortly.')
  }
  const relayed: [string, string][] = []
  for (const name of relayedHeaders) {
    const value = answer.headers[name]
    if (value !== undefined) relayed.push([name, Array.isArray(value) ? value.join(', ') : value])
  }
  const contentType = answer.headers['content-type']
  send(exchange, answer.status, answer.body, relayed, contentType ?? 'application/json')
}
