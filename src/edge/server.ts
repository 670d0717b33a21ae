/** @module The HTTP server on uWebSockets.js: dispatch to health, admin and /v2, graceful drain on shutdown. */

import { performance } from 'node:perf_hooks'
import { Type } from 'typebox'
import * as uws from 'uWebSockets.js'
import { App, us_listen_socket_close, us_socket_local_port, type TemplatedApp, type us_listen_socket } from 'uWebSockets.js'
import { reject } from '../errors.js'
import type { RateBudgets } from '../api/lifecycle.js'
import type { Logger } from '../logger.js'
import { adminRoutes } from '../api/admin-routes.js'
import { bearerMatches } from '../api/auth.js'
import { v2Routes } from '../api/route-table.js'
import { consoleAnswerer, isConsolePath, loadConsoleAssets } from './console.js'
import { Drain, type DrainReport } from './drain.js'
import { openExchange, readBody, readHeaders, send, watchAborted, type Exchange } from './http.js'
import { abortedStatus, type Metrics } from './metrics.js'
import { buildOpenApi } from './openapi.js'
import { RateBuckets } from './rate-buckets.js'
import { requestIdOf } from './request-id.js'
import type { Shard } from '../shard/operation.js'
import type { EdgeHops } from '../shard/thread-shard.js'
import { attachStream, countsOf, type EdgeCounts, type StreamEndpoint } from './stream.js'
import type { SendBufferCounts } from '../stream/send-buffers.js'
import { filesReadInWorker } from '../api/statement-worker-pool.js'
import type { PlainRoute } from '../api/route.js'
import { health } from '../api/schemas/responses.js'
import { httpLifecycles, sendRejection } from './v2-pipeline.js'
import { holdPort } from './port-hold.js'
import { StartRefused } from '../start-refused.js'
import { version } from '../version.js'
import { answeredElsewhere, forwardedHeader, type Forwarding } from './forward.js'

export interface ServerOptions {
  readonly shard: Shard
  /** Cluster mode: requests for a shard another node owns are forwarded to it (src/edge/forward.ts). */
  readonly forwarding?: Forwarding
  readonly host: string
  readonly port: number
  readonly adminToken: string
  readonly bodyBytesMax: number
  readonly importBodyBytesMax: number
  readonly clock: () => number
  readonly metrics: Metrics
  /** One line per request (never a header value or a body): successful ones at debug, the rest at info. */
  readonly logger: Logger
  /** A successful request this slow is logged at info. */
  readonly logSlowRequestMs: number
  /** When set, GET /metrics needs it as a bearer token. */
  readonly metricsToken: string | null
  readonly requestIdLengthMax: number
  /** A WebSocket at /v2/stream not authenticated by then is closed (4401). */
  readonly streamAuthTimeoutMs: number
  readonly streamKeyBufferBytesMax: number
  readonly streamProcessBufferBytesMax: number
  /** The rate budgets; absent, this edge's own (RateBuckets). The edges on the shards' threads share theirs. */
  readonly buckets?: RateBudgets
  /** Where the WebSockets' unread bytes are counted; absent, this edge's own (SendBuffers). The edges on the shards' threads share theirs. */
  readonly sendBuffers?: SendBufferCounts
  /** GET /metrics's text; absent, `metrics.render()`. The edges on the shards' threads answer every thread's. */
  readonly renderMetrics?: () => Promise<string>
}

export interface RunningServer {
  readonly port: number
  /** The main thread's WebSocket endpoint; null when the shards' threads serve the connections (threaded-server.ts). */
  readonly stream: StreamEndpoint | null
  /** A test seam: each shard thread's edge's operations, executed there or forwarded ([] when the main thread serves). */
  edgeHops(): Promise<readonly EdgeHops[]>
  /** A test seam: the WebSocket sessions and counts of every thread that serves them (stream.ts, EdgeCounts). */
  edgeCounts(): Promise<EdgeCounts>
  /** Stops accepting, answers what is in flight and 503 to what comes on open connections, then closes them (at most graceMs). */
  close(graceMs: number): Promise<DrainReport>
}

const headerNames = ['authorization', 'idempotency-key', 'content-type', 'request-id', 'x-request-id', forwardedHeader] as const
const presenceMatters = ['idempotency-key']

/** uWS gives the method in lower case; the usual ones are upper-cased by a lookup, not a new string per request. */
const upperCaseMethods = new Map(['get', 'post', 'patch', 'delete', 'put', 'head', 'options'].map((method) => [method, method.toUpperCase()]))

function upperCase(method: string): string {
  return upperCaseMethods.get(method) ?? method.toUpperCase()
}

export const healthRoute: PlainRoute = {
  method: 'GET', pattern: '/healthz', summary: 'Liveness: 200 while the service accepts requests', security: 'none', errors: [],
  response: { status: 200, description: 'Serving', schema: health, mediaType: 'application/json' },
}

export const openApiRoute: PlainRoute = {
  method: 'GET', pattern: '/v2/openapi.json', summary: 'This OpenAPI 3.1 document (no auth, no rate limit)', security: 'none', errors: [],
  response: { status: 200, description: 'The document', schema: Type.Object({ openapi: Type.Literal('3.1.0'), info: Type.Object({}, { additionalProperties: true }), paths: Type.Object({}, { additionalProperties: true }) }, { additionalProperties: true }), mediaType: 'application/json' },
}

export const metricsRoute: PlainRoute = {
  method: 'GET', pattern: '/metrics', summary: 'Prometheus metrics (not rate limited)', security: 'metricsToken', errors: ['unauthenticated'],
  response: { status: 200, description: 'Prometheus text exposition format 0.0.4', schema: Type.String(), mediaType: 'text/plain' },
}

/** The routes outside /v2 and /admin; all GET. */
export const plainRoutes: readonly PlainRoute[] = [healthRoute, openApiRoute, metricsRoute]

// uWebSockets.js listens with SO_REUSEPORT unless told otherwise, and then a second server on the same port
// starts and the kernel splits the connections between two ledgers. uws-pack 20.0.8 exports the option as
// LIBUS_LISTEN_EXCLUSIVE_PORT and takes it as listen(host, port, options, cb); its typings declare neither
// (their enum ListenOptions is not exported at run time), hence the lookup and the signature below.
const exclusivePortOption = (uws as unknown as Record<string, unknown>).LIBUS_LISTEN_EXCLUSIVE_PORT
type ListenWithOptions = (host: string, port: number, options: number, cb: (socket: us_listen_socket | false) => void) => TemplatedApp

function listenExclusive(app: TemplatedApp, host: string, port: number, cb: (socket: us_listen_socket | false) => void): void {
  if (typeof exclusivePortOption !== 'number') throw new Error('uWebSockets.js exports no LIBUS_LISTEN_EXCLUSIVE_PORT: cannot listen exclusively')
  ;(app.listen as unknown as ListenWithOptions).call(app, host, port, exclusivePortOption, cb)
}

/** uWebSockets.js says only that it could not listen; a plain bind of the same address says why. */
async function whyNotListening(host: string, port: number): Promise<StartRefused> {
  try {
    const hold = await holdPort(host, port)
    hold?.release()
    return new StartRefused(`cannot listen on ${host}:${port}: uWebSockets.js could not bind it`)
  } catch (error) {
    return error instanceof StartRefused ? error : new StartRefused(`cannot listen on ${host}:${port}: ${String(error)}`)
  }
}

/** Health, the OpenAPI document and metrics: answered here, outside the /v2 lifecycle (no API key, no rate budget). */
function plainAnswerer(options: EdgeOptions): (route: PlainRoute, exchange: Exchange, method: string, authorization: string | undefined) => void {
  // Built once: the route tables do not change while the server runs.
  const healthBody = JSON.stringify({ status: 'ok', version })
  const openApiBody = JSON.stringify(buildOpenApi({ v2: v2Routes, admin: adminRoutes, plain: plainRoutes }, { bodyBytesMax: options.bodyBytesMax, importBodyBytesMax: options.importBodyBytesMax }))
  const render = options.renderMetrics ?? (() => options.metrics.render())
  return (route, exchange, method, authorization) => {
    exchange.route = route
    // The metrics token first, whatever the method: without it even a 405 is not answered.
    if (route.security === 'metricsToken' && options.metricsToken !== null && !bearerMatches(options.metricsToken, authorization)) {
      return sendRejection(exchange, reject('unauthenticated', 'The metrics token is required: Authorization: Bearer <METRICS_TOKEN>.'), [])
    }
    // Every plain route serves GET (and HEAD, routed as GET) only.
    if (method !== 'GET') return sendRejection(exchange, reject('method_not_allowed', `${route.pattern} serves GET and HEAD only.`), [['Allow', 'GET, HEAD']])
    if (route === healthRoute) return send(exchange, 200, healthBody, [])
    if (route === openApiRoute) return send(exchange, 200, openApiBody, [])
    render().then((text) => send(exchange, 200, text, [], options.metrics.contentType), (error: unknown) => {
      sendRejection(exchange, reject('unavailable', 'The metrics could not be collected.'), [])
      options.logger.error({ err: error }, 'metrics collection failed')
    })
  }
}

/**
 * Once per request, answered or abandoned: its metrics and its one log line. The line of a quick
 * success is at debug: at info, a line per request halved the read throughput (docs/PERFORMANCE.md),
 * and it tells an operator nothing the metrics do not. Errors (4xx, 5xx, 499 for a client gone) and
 * slow requests stay at info, where they are seen by default.
 */
function requestObserver(options: EdgeOptions): (exchange: Exchange) => void {
  options.metrics.addRoutes([...plainRoutes, ...v2Routes, ...adminRoutes])
  const { logger, logSlowRequestMs } = options
  const infoEnabled = logger.isLevelEnabled('info')
  const debugEnabled = logger.isLevelEnabled('debug')
  return (exchange) => {
    const durationMs = performance.now() - exchange.startedMs
    const status = exchange.answered ? exchange.status : abortedStatus
    options.metrics.observeRequest(exchange.route, status, durationMs)
    const notable = status >= 400 || durationMs >= logSlowRequestMs
    if (notable ? !infoEnabled : !debugEnabled) return
    // Id, method, route pattern, status and time only: no header value, path id, query or body is ever logged.
    const route = exchange.route?.pattern ?? 'unmatched'
    const line = { request_id: exchange.requestId, method: exchange.method, route, status, duration_ms: Math.round(durationMs * 1000) / 1000 }
    if (notable) logger.info(line, 'request')
    else logger.debug(line, 'request')
  }
}

/** What a thread serves on its own app: the same route tables, lifecycle, stream and drain on any thread. */
export type EdgeOptions = Omit<ServerOptions, 'host' | 'port'>

/** An edge's app, not listening: the listening app may be this thread's (startServer) or another's (child-apps.ts). */
export interface Edge {
  readonly app: TemplatedApp
  readonly stream: StreamEndpoint
  readonly drain: Drain
  /** The drain, `stopListening` first (nothing, for a child app: the listening thread stops accepting). */
  close(graceMs: number, stopListening: () => void): Promise<DrainReport>
}

export function buildEdge(options: EdgeOptions): Edge {
  const buckets = options.buckets ?? new RateBuckets()
  const onRateLimited = (workspace: string, bucket: 'reads' | 'writes') => options.metrics.observeRateLimited(workspace, bucket)
  const { v2, admin } = httpLifecycles({
    shard: options.shard, adminToken: options.adminToken, buckets, clock: options.clock, bodyBytesMax: options.bodyBytesMax,
    importBodyBytesMax: options.importBodyBytesMax, onRateLimited,
  })
  const plainByPath = new Map(plainRoutes.map((route) => [route.pattern, route]))
  const answerPlain = plainAnswerer(options)
  const answerConsole = consoleAnswerer(loadConsoleAssets())
  const observe = requestObserver(options)
  const drain = new Drain()
  const onSettled = (exchange: Exchange) => {
    drain.requestSettled()
    observe(exchange)
  }
  const forwardBodyBytesMax = Math.max(options.bodyBytesMax, options.importBodyBytesMax)
  const dispatch = (exchange: Exchange, path: string, query: string, headers: Map<string, string>): void => {
    if (drain.closing) {
      drain.requestRefused()
      return sendRejection(exchange, reject('unavailable', 'The service is shutting down.'), [])
    }
    // HEAD is routed as GET (same route, scope, budget, status and headers); send() leaves the body out.
    const routedMethod = exchange.method === 'HEAD' ? 'GET' : exchange.method
    const plain = plainByPath.get(path)
    // These answer without the lifecycle, whose body stage reads a body first: a body sent anyway (and slowly) is read and
    // dropped before the answer, else a large answer (the OpenAPI document, a console asset) still being written when
    // its bytes came would be cut off, the connection closed unanswered (the fuzzer's raw-socket slow GET found it).
    if (plain !== undefined) return readBody(exchange, 0, () => answerPlain(plain, exchange, routedMethod, headers.get('authorization')))
    if (isConsolePath(path)) return readBody(exchange, 0, () => answerConsole(exchange, routedMethod, path))
    // Cluster mode: a shard another node owns is answered there; none serving it (a takeover): 503.
    if (options.forwarding !== undefined && answeredElsewhere(options.forwarding, exchange, { path, query, headers }, forwardBodyBytesMax)) return
    const request = { method: routedMethod, path, query, headers }
    if (path.startsWith('/admin/')) return admin.run(request, exchange)
    v2.run(request, exchange)
  }
  const app = App().any('/*', (res, req) => {
    drain.requestStarted()
    const startedMs = performance.now()
    const method = upperCase(req.getMethod())
    const path = req.getUrl()
    const query = req.getQuery() ?? ''
    const headers = readHeaders(req, headerNames, method === 'GET' ? [] : presenceMatters)
    const requestId = requestIdOf(headers.get('request-id'), headers.get('x-request-id'), options.requestIdLengthMax)
    const exchange = openExchange(res, method, requestId, startedMs, onSettled, drain)
    try {
      dispatch(exchange, path, query, headers)
    } catch (error) {
      // A programmer error: answer rather than leave the client hanging, then let it crash loudly.
      sendRejection(exchange, reject('unavailable', 'Internal error.'), [])
      throw error
    } finally {
      watchAborted(exchange)
    }
  }).filter((_res, change) => drain.connectionsChanged(change))
  const stream = attachStream(app, {
    shard: options.shard, buckets, clock: options.clock, bodyBytesMax: options.bodyBytesMax, importBodyBytesMax: options.importBodyBytesMax,
    authTimeoutMs: options.streamAuthTimeoutMs, keyBufferBytesMax: options.streamKeyBufferBytesMax, processBufferBytesMax: options.streamProcessBufferBytesMax, onRateLimited, closing: () => drain.closing,
    buffers: options.sendBuffers,
    elsewhere: options.forwarding === undefined ? undefined : (workspace) => options.forwarding!.routeOfWorkspace(workspace),
  })
  const close = (graceMs: number, stopListening: () => void) => drain.close(graceMs, stopListening, () => {
    stream.closeAll()
    app.close()
  })
  return { app, stream, drain, close }
}

/** Listens on host:port exclusively; resolves with the listen socket, or rejects with why it could not. */
export function listenOn(app: TemplatedApp, host: string, port: number): Promise<us_listen_socket> {
  return new Promise((resolve, reject) => {
    listenExclusive(app, host, port, (socket: us_listen_socket | false) => {
      if (socket === false) return void whyNotListening(host, port).then(reject, reject)
      resolve(socket)
    })
  })
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const edge = buildEdge(options)
  const socket = await listenOn(edge.app, options.host, options.port)
  return {
    port: us_socket_local_port(socket),
    stream: edge.stream,
    edgeHops: async () => [],
    edgeCounts: async () => countsOf(edge.stream, filesReadInWorker()),
    close: (graceMs) => edge.close(graceMs, () => us_listen_socket_close(socket)),
  }
}
