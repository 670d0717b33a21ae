/**
 * @module GET /v2/stream: the WebSocket API (docs/API.md, WebSocket API and live updates) on the HTTP server's uWebSockets.js app. The
 * upgrade, frames, drain and close; the protocol is src/stream/messages.ts, requests run the request lifecycle.
 */

import type { HttpRequest, HttpResponse, TemplatedApp, us_socket_context_t, WebSocket, WebSocketBehavior } from 'uWebSockets.js'
import { authenticate } from '../api/auth.js'
import { Lifecycle, type RateBudgets } from '../api/lifecycle.js'
import { v2Surface } from '../api/surfaces.js'
import { errorBody, reject } from '../errors.js'
import { LiveHub } from '../stream/hub.js'
import { authenticated, closeUnauthenticated, firstMessageBytesMax, handleMessage, servedElsewhere, streamTransport, type StreamContext, type WorkspaceRoute } from '../stream/messages.js'
import { SendBuffers, type SendBufferCounts } from '../stream/send-buffers.js'
import { StreamSession } from '../stream/session.js'
import type { Shard } from '../shard/operation.js'

export const streamPattern = '/v2/stream'
/** The route of sockets authenticated by their upgrade's header: it matches /v2/stream (its upgrade yields to any other). */
const keyedStreamPattern = '/v2/:stream'
/**
 * A socket's send buffer at most: past it uWebSockets.js closes the socket. Updates are coalesced from
 * 1 MiB on (session.ts) and requests are bounded in number, so only a client that never reads its
 * answers gets here; it is closed rather than let grow.
 */
export const streamBackpressureBytesMax = 64 * 1024 * 1024
/** A frame carries a request with a body of up to the import limit, plus its envelope. */
const frameEnvelopeBytes = 64 * 1024

export interface StreamOptions {
  readonly shard: Shard
  /** The HTTP server's buckets: a workspace has one budget whatever the transport. */
  readonly buckets: RateBudgets
  readonly clock: () => number
  readonly bodyBytesMax: number
  readonly importBodyBytesMax: number
  readonly authTimeoutMs: number
  readonly onRateLimited?: (workspace: string, bucket: 'reads' | 'writes') => void
  /** Unread bytes in the send buffers of one key's sockets together, and of all sockets, at most (send-buffers.ts). */
  readonly keyBufferBytesMax: number
  readonly processBufferBytesMax: number
  /** Where those bytes are counted; absent, on this thread alone (SendBuffers). The edges on the shards' threads share theirs. */
  readonly buffers?: SendBufferCounts
  /** Whether the server is shutting down (upgrades are then refused). */
  readonly closing: () => boolean
  /** Cluster mode: where a workspace is served (src/edge/forward.ts); a session elsewhere is refused. */
  readonly elsewhere?: (workspace: string) => WorkspaceRoute
}

interface SocketData {
  /** The upgrade's Authorization header until the socket opened; then '' (a key's secret is not kept). */
  authorization: string
  session: StreamSession | null
  authTimer: NodeJS.Timeout | null
}

/** A session as a test sees it from any thread (EdgeCounts). */
export interface SessionCounts {
  readonly keyId: string | null
  /** The socket's send buffer, and that with this turn's unsent messages (session.ts bufferedBytes). */
  readonly bufferedAmount: number
  readonly bufferedBytes: number
  readonly inFlight: number
  readonly topicsCount: number
  readonly coalescedCount: number
  readonly pendingCount: number
}

/**
 * A test seam, the same on any thread (Service.edgeCounts adds every thread's up): the WebSocket sessions, the
 * sockets closed over a send-buffer bound, the unread bytes counted over the process, the statement files read.
 */
export interface EdgeCounts {
  readonly sessions: readonly SessionCounts[]
  readonly closedCount: number
  readonly totalBytes: number
  readonly filesReadInWorker: number
}

/** This thread's part of EdgeCounts. */
export function countsOf(stream: StreamEndpoint, filesReadInWorker: number): EdgeCounts {
  const sessions = [...stream.sessions].map((session) => ({
    keyId: session.caller?.key?.id ?? null, bufferedAmount: session.socket.getBufferedAmount(), bufferedBytes: session.bufferedBytes, inFlight: session.inFlight,
    topicsCount: session.topics.size, coalescedCount: session.coalescedCount, pendingCount: session.pendingCount,
  }))
  return { sessions, closedCount: stream.buffers.closedCount, totalBytes: stream.buffers.totalBytes, filesReadInWorker }
}

export interface StreamEndpoint {
  readonly hub: LiveHub
  readonly sessions: ReadonlySet<StreamSession>
  readonly buffers: SendBufferCounts
  /** Closes every socket (1001 going away): at shutdown, before the app closes. */
  closeAll(): void
}

export function attachStream(app: TemplatedApp, options: StreamOptions): StreamEndpoint {
  const { shard, clock, bodyBytesMax, importBodyBytesMax } = options
  // An update goes to every socket on its topic in one call; sessions behind take theirs aside (session.ts).
  const hub = new LiveHub(shard, (topic, text) => { app.publish(topic, text) })
  // Every stage runs, auth included: it takes the socket's caller as handed over and checks its key again.
  const lifecycle = new Lifecycle({ ...v2Surface(shard), clock, bodyBytesMax, importBodyBytesMax, skip: [], buckets: options.buckets, onRateLimited: options.onRateLimited }, streamTransport)
  const context: StreamContext = { shard, hub, lifecycle, clock, bodyBytesMax, elsewhere: options.elsewhere }
  const sessions = new Set<StreamSession>()
  shard.onSystemCommand((command) => {
    if (command.type !== 'key.revoke') return
    for (const session of sessions) if (session.caller?.key?.id === command.id) session.close(closeUnauthenticated, 'key revoked')
  })
  const buffers = options.buffers ?? new SendBuffers(options.keyBufferBytesMax, options.processBufferBytesMax)
  const handlers = socketHandlers(context, sessions, buffers, options.authTimeoutMs)
  // uWebSockets.js bounds frames per route, and buffers up to that bound before `message` sees a byte: a socket
  // that has not authenticated must not be on a route that lets it park 16 MiB. So /v2/stream is two routes:
  // an upgrade without Authorization header takes the small one (first-message auth, frames of 4 KiB at most),
  // one authenticated by its header yields (setYield) to the other, a parameter route (lower priority than a
  // static one) whose frames hold a request up to the import limit.
  app.ws<SocketData>(streamPattern, {
    ...handlers, maxPayloadLength: firstMessageBytesMax,
    upgrade: (res, req, socketContext) => {
      if (req.getHeader('authorization') !== '') return void req.setYield(true)
      upgradeSocket(options, res, req, socketContext)
    },
  })
  app.ws<SocketData>(keyedStreamPattern, {
    ...handlers, maxPayloadLength: importBodyBytesMax + frameEnvelopeBytes,
    upgrade: (res, req, socketContext) => {
      // Only what the small route yielded: never a socket without a key (it would wait for auth with big frames).
      if (req.getParameter(0) !== 'stream' || req.getHeader('authorization') === '') return void req.setYield(true)
      upgradeSocket(options, res, req, socketContext)
    },
  })
  return {
    hub, sessions, buffers,
    closeAll: () => { for (const session of [...sessions]) session.close(1001, 'shutting down') },
  }
}

/** What both routes do with a socket once it is upgraded. */
function socketHandlers(context: StreamContext, sessions: Set<StreamSession>, buffers: SendBufferCounts, authTimeoutMs: number): Omit<WebSocketBehavior<SocketData>, 'upgrade' | 'maxPayloadLength'> {
  const { hub } = context
  return {
    maxBackpressure: streamBackpressureBytesMax,
    closeOnBackpressureLimit: true,
    idleTimeout: 120,
    sendPingsAutomatically: true,
    open: (ws) => opened(context, sessions, new StreamSession(ws, buffers), authTimeoutMs),
    message: (ws, message) => {
      const session = ws.getUserData().session
      // The ArrayBuffer is valid only during this call: everything is parsed out of it before returning.
      if (session !== null) handleMessage(context, session, Buffer.from(message))
    },
    drain: (ws) => ws.getUserData().session?.drained(),
    close: (ws) => {
      const data = ws.getUserData()
      const session = data.session
      if (data.authTimer !== null) clearTimeout(data.authTimer)
      if (session === null) return
      session.closed = true
      sessions.delete(session)
      buffers.removed(session)
      const workspace = session.caller?.key?.workspace
      if (workspace !== undefined) for (const topic of session.topics) hub.unwatch(workspace, topic, session)
    },
  }
}

/** The upgrade: refused while shutting down, or with 401 for an Authorization header that names no live key. */
function upgradeSocket(options: StreamOptions, res: HttpResponse, req: HttpRequest, socketContext: us_socket_context_t): void {
  const authorization = req.getHeader('authorization')
  const secKey = req.getHeader('sec-websocket-key')
  const protocol = req.getHeader('sec-websocket-protocol')
  const extensions = req.getHeader('sec-websocket-extensions')
  const refusal = options.closing()
    ? { status: '503 Service Unavailable', body: errorBody(reject('unavailable', 'The service is shutting down.')) }
    : authorization === '' ? null : keyRefusal(options, authorization)
  if (refusal !== null) {
    return void res.cork(() => res.writeStatus(refusal.status).writeHeader('content-type', 'application/json').end(refusal.body))
  }
  res.upgrade<SocketData>({ authorization, session: null, authTimer: null }, secKey, protocol, extensions, socketContext)
}

/** An upgrade's key that names no live key (401), or whose workspace another node serves (cluster mode: 503 naming it). */
function keyRefusal(options: StreamOptions, authorization: string): { readonly status: string; readonly body: string } | null {
  const key = authenticate(options.shard.system, authorization)
  if (key === null) return { status: '401 Unauthorized', body: errorBody(reject('unauthenticated')) }
  const elsewhere = servedElsewhere(options, key.workspace)
  return elsewhere === null ? null : { status: '503 Service Unavailable', body: errorBody(elsewhere) }
}

function opened(context: StreamContext, sessions: Set<StreamSession>, session: StreamSession, authTimeoutMs: number): void {
  const data = (session.socket as WebSocket<SocketData>).getUserData()
  data.session = session
  sessions.add(session)
  // The upgrade's header is read once and dropped: no raw key stays in the socket's data.
  const authorization = data.authorization
  data.authorization = ''
  if (authorization !== '') {
    // On the route of big frames a socket is never unauthenticated (its key revoked between upgrade and open: closed).
    if (!authenticated(context, session, authorization)) session.close(closeUnauthenticated, 'unauthenticated')
    return
  }
  // A browser cannot set the header: its first message must authenticate, within the time allowed.
  data.authTimer = setTimeout(() => {
    data.authTimer = null
    if (session.caller === null) session.close(closeUnauthenticated, 'no auth message in time')
  }, authTimeoutMs)
}
