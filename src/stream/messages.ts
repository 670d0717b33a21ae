/**
 * @module The WebSocket protocol (docs/API.md, WebSocket API and live updates), without the socket: auth, subscribe, unsubscribe, and
 * requests run through the request lifecycle (src/api/lifecycle.ts) with the socket's key as the caller.
 */

import { authenticate } from '../api/auth.js'
import { parseJson } from '../api/json.js'
import type { ApiRequest, Caller, Lifecycle, Transport } from '../api/lifecycle.js'
import { validator } from '../api/schemas/validate.js'
import { errorBody, reject, statusOf, type Rejection } from '../errors.js'
import { requestMessage as requestMessageSchema } from './message-schemas.js'
import { errorText, responseText } from './replies.js'
import { subscribe, unsubscribe } from './subscriptions.js'
import type { Shard } from '../shard/operation.js'
import type { LiveHub } from './hub.js'
import { inFlightMax, type StreamSession } from './session.js'

/** Close code when the socket never authenticated, failed to, or its key was revoked (docs/API.md, WebSocket API and live updates). */
export const closeUnauthenticated = 4401

/** Cluster mode: where a workspace's requests are served (src/edge/forward.ts): here, by the owner at its URL, or nowhere now. */
export type WorkspaceRoute =
  | { readonly kind: 'local' }
  | { readonly kind: 'forward'; readonly url: string }
  | { readonly kind: 'unavailable'; readonly reason: string }

/** Close code of a socket whose workspace this node does not serve (cluster mode): connect to the owner's URL, or retry. */
export const closeElsewhere = 4503

export interface StreamContext {
  readonly shard: Shard
  /** Cluster mode: a session is served only by the node that serves its workspace's shard; absent for a single node. */
  readonly elsewhere?: (workspace: string) => WorkspaceRoute
  readonly hub: LiveHub
  readonly lifecycle: Lifecycle<StreamExchange>
  readonly clock: () => number
  /** The smallest body limit: a frame no longer than it holds a body within every route's limit. */
  readonly bodyBytesMax: number
}

/** One request on a socket: where its response goes. */
export interface StreamExchange {
  readonly session: StreamSession
  readonly id: string
}

/** The schema the OpenAPI document publishes (message-schemas.ts) is the one requests are validated with. */
const requestMessage = validator(requestMessageSchema)

/** The lifecycle's side of a socket: an answer becomes a `response` message. */
export const streamTransport: Transport<StreamExchange> = {
  respond: (exchange, status, body, headers) => {
    exchange.session.inFlight--
    exchange.session.send(responseText(exchange.id, status, body, headers))
  },
  // An export is a file (CSV, PDF bytes) that HTTP writes page by page as the client takes it; a response
  // message is JSON text in one piece, so it would hold the whole file, its bytes pasted as a string. Refused
  // once the route's own checks passed (an unknown window stays 404), before a page is read.
  stream: (exchange, _status, _headers, _pull, close) => {
    close()
    streamTransport.respond(exchange, statusOf('request_invalid'), errorBody(exportsRefused), [])
  },
}

const exportsRefused = reject('request_invalid', 'Exports are served over HTTP only: GET the same path and query over HTTP, which streams the file.', [{ path: '/path', message: 'an export route' }])

/**
 * A socket's first message before it is authenticated, in bytes at most: an auth message is about 70. Until then
 * nothing else is read or answered (docs/API.md, "WebSocket API and live updates"); edge/stream.ts holds a socket
 * that authenticates by message to frames of this size, so uWebSockets.js never buffers more for it.
 */
export const firstMessageBytesMax = 4 * 1024

/** One text frame from the client. */
export function handleMessage(context: StreamContext, session: StreamSession, bytes: Buffer): void {
  if (session.caller === null) return firstMessage(context, session, bytes)
  // Cluster mode: the shard moved to another node since the session opened (a takeover): refused as at auth.
  if (context.elsewhere !== undefined && refusedElsewhere(context, session, session.caller.workspace!.id)) return
  const parsed = parseJson(bytes)
  if (!parsed.ok) return session.send(errorText(parsed, undefined))
  const message = typedMessage(parsed.value)
  if (message === null) {
    return session.send(errorText(reject('request_invalid', 'A message is a JSON object with a string "type".', [{ path: '/type', message: 'must be a string' }]), undefined))
  }
  switch (message.type) {
    case 'auth': return session.send(errorText(reject('request_invalid', 'This socket is authenticated already.', [{ path: '/type', message: 'auth is the first message only' }]), message.id))
    case 'subscribe': return subscribe(context, session, message)
    case 'unsubscribe': return unsubscribe(context, session, message)
    case 'request': return requestMessageIn(context, session, message, bytes.length)
    default: return session.send(errorText(reject('request_invalid', `Unknown message type ${JSON.stringify(message.type).slice(0, 80)}.`, [{ path: '/type', message: 'must be auth, subscribe, unsubscribe or request' }]), message.id))
  }
}

function typedMessage(value: unknown): (Record<string, unknown> & { type: string }) | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null
  const message = value as Record<string, unknown>
  return typeof message.type === 'string' ? message as Record<string, unknown> & { type: string } : null
}

/**
 * Before auth nothing is answered: a first message that is too big, not JSON, not an object or not an auth
 * message closes the socket (4401). An unknown caller learns nothing and holds nothing.
 */
function firstMessage(context: StreamContext, session: StreamSession, bytes: Buffer): void {
  const parsed = bytes.length <= firstMessageBytesMax ? parseJson(bytes) : null
  const message = parsed?.ok === true ? typedMessage(parsed.value) : null
  if (message === null || message.type !== 'auth') return session.close(closeUnauthenticated, 'authenticate first')
  authMessage(context, session, message.key)
}

/**
 * Cluster mode: why a session of this workspace is not served on this node (its shard's owner is another node, at
 * its URL, or none serves it during a takeover), or null when it is. Its requests and subscriptions need the owner's
 * state and its live updates, which only the owner has: the session is refused rather than served from a copy.
 */
export function servedElsewhere(context: Pick<StreamContext, 'elsewhere'>, workspace: string): Rejection | null {
  const route = context.elsewhere?.(workspace)
  if (route === undefined || route.kind === 'local') return null
  if (route.kind === 'unavailable') return reject('unavailable', `${route.reason} Connect again shortly.`)
  const url = `${route.url.replace(/\/+$/, '')}/v2/stream`
  return reject('unavailable', `Workspace ${workspace} is served by another node: connect to ${url}.`, [{ path: '/owner_url', message: url }])
}

/** A session whose workspace this node does not serve now: an error message naming where it is, then closed with 4503. */
function refusedElsewhere(context: StreamContext, session: StreamSession, workspace: string): boolean {
  const elsewhere = servedElsewhere(context, workspace)
  if (elsewhere === null) return false
  session.send(errorText(elsewhere, undefined))
  // Closed once the message is written: this turn's messages leave corked, in a microtask queued by the first.
  queueMicrotask(() => session.close(closeElsewhere, 'workspace served by another node'))
  return true
}

/**
 * The key of the socket: from the upgrade's Authorization header, or the first message (a browser cannot set headers).
 * False for a key that names no live key (the caller closes the socket with 4401); a workspace served by another node
 * (cluster mode) is answered with an error message naming it, and the socket closed with 4503.
 */
export function authenticated(context: StreamContext, session: StreamSession, authorization: string): boolean {
  const key = authenticate(context.shard.system, authorization)
  const workspace = key === null ? undefined : context.shard.system.workspaces.get(key.workspace)
  if (key === null || workspace === undefined) return false
  if (refusedElsewhere(context, session, workspace.id)) return true
  session.caller = { key, workspace }
  session.send(`{"type":"authenticated","key":${JSON.stringify(key.id)},"workspace":${JSON.stringify(workspace.id)}}`)
  return true
}

function authMessage(context: StreamContext, session: StreamSession, key: unknown): void {
  if (typeof key !== 'string' || !authenticated(context, session, `Bearer ${key}`)) session.close(closeUnauthenticated, 'unauthenticated')
}

/** A request without headers: one map shared by all of them (the lifecycle only reads request headers). */
const noHeaders: ReadonlyMap<string, string> = new Map()

function requestMessageIn(context: StreamContext, session: StreamSession, message: Record<string, unknown>, frameBytes: number): void {
  const valid = requestMessage(message)
  if (!valid.ok) return session.send(errorText(valid, message.id))
  const { id, method, path, headers, body } = valid.value
  if (session.inFlight >= inFlightMax) {
    return session.send(responseText(id, statusOf('rate_limited'), errorBody(reject('rate_limited', `Over ${inFlightMax} requests unanswered on this socket.`)), [['Retry-After', '1']]))
  }
  const headerMap = headers === undefined ? noHeaders : headerMapOf(headers as Readonly<Record<string, string>>)
  const queryAt = path.indexOf('?')
  const request: ApiRequest = {
    method: method.toUpperCase(), path: queryAt < 0 ? path : path.slice(0, queryAt), query: queryAt < 0 ? '' : path.slice(queryAt + 1), headers: headerMap,
    body: bodyOf(context, body, 'body' in valid.value, headerMap.get('content-type'), frameBytes), caller: requestCaller(context, session),
  }
  session.inFlight++
  context.lifecycle.run(request, { session, id })
}

function headerMapOf(headers: Readonly<Record<string, string>>): Map<string, string> {
  const headerMap = new Map<string, string>()
  // The socket's key is the caller: an Authorization header in a request means nothing here.
  for (const name in headers) {
    const lower = name.toLowerCase()
    if (lower !== 'authorization') headerMap.set(lower, headers[name])
  }
  return headerMap
}

/**
 * The socket's key with its workspace record as it is now (its limits may have changed since the socket
 * opened): the same caller object for every request while that record stays the same.
 */
function requestCaller(context: StreamContext, session: StreamSession): Caller {
  const key = session.caller!.key!
  const workspace = context.shard.system.workspaces.get(key.workspace) ?? session.caller!.workspace
  const last = session.requestCaller
  if (last !== null && last.key === key && last.workspace === workspace) return last
  return (session.requestCaller = { key, workspace })
}

/** JSON bodies as values (sized for the limit); a text body of another media type (CSV) as its bytes. */
function bodyOf(context: StreamContext, body: unknown, present: boolean, contentType: string | undefined, frameBytes: number): ApiRequest['body'] {
  if (!present) return undefined
  if (typeof body === 'string' && contentType !== undefined && !/json/i.test(contentType)) return Buffer.from(body, 'utf8')
  // The frame holds the body: when the frame is within the smallest limit, so is the body, and it need not be measured.
  const byteLength = frameBytes <= context.bodyBytesMax ? frameBytes : Buffer.byteLength(JSON.stringify(body) ?? '')
  return { value: body, byteLength }
}
