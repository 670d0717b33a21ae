/** @module uWebSockets.js plumbing: read a bounded body, notice aborted clients, write a corked response. */

import type { HttpRequest, HttpResponse } from 'uWebSockets.js'
import type { LabeledRoute } from '../api/route.js'
import type { Pull } from '../api/streamed-answer.js'

export interface Exchange {
  readonly res: HttpResponse
  readonly method: string
  /** Sent back as the Request-Id header of the answer and written in its log line. */
  readonly requestId: string
  /** performance.now() when the request arrived. */
  readonly startedMs: number
  /** The route that answers, once the dispatch knows it; null for an unknown route. */
  route: LabeledRoute | null
  aborted: boolean
  answered: boolean
  /** The answer's status; 0 until answered (and after an abort). */
  status: number
  /** A streamed answer is under way: it settles when its last chunk is written, or when the client goes away. */
  streaming: boolean
  /** Called once, when the exchange is answered or the client went away. */
  readonly onSettled: (exchange: Exchange) => void
  /** The server's state: while it shuts down, every answer asks the client to close the connection. */
  readonly server: ServerState
}

export interface ServerState {
  readonly closing: boolean
}

export interface ReadBody {
  /** The body, or null when it exceeded the limit (the rest was read and dropped). */
  readonly bytes: Buffer | null
}

const statusText: Record<number, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden',
  404: 'Not Found', 405: 'Method Not Allowed', 409: 'Conflict', 413: 'Payload Too Large', 422: 'Unprocessable Entity', 429: 'Too Many Requests',
  500: 'Internal Server Error', 503: 'Service Unavailable',
}

/**
 * `201 Created`, built once per status and held as bytes: uWS copies a string argument into UTF-8 on
 * every call (it measured ~0.1 µs a call in the profile of a GET), a Buffer it reads in place. The same
 * for the header names every answer writes and the usual content type.
 */
const statusLines = new Map(Object.entries(statusText).map(([status, text]) => [Number(status), Buffer.from(`${status} ${text}`)]))

function statusLineOf(status: number): Buffer | string {
  return statusLines.get(status) ?? `${status} Unknown`
}

const requestIdName = Buffer.from('Request-Id')
const contentTypeName = Buffer.from('content-type')
const rateLimitName = Buffer.from('X-RateLimit-Limit')
const rateRemainingName = Buffer.from('X-RateLimit-Remaining')
const jsonContentType = Buffer.from('application/json')

/** The rate headers' names (on nearly every answer) as bytes, found by comparison (cheaper than a Map lookup); others as given. */
function headerNameOf(name: string): Buffer | string {
  if (name === 'X-RateLimit-Limit') return rateLimitName
  if (name === 'X-RateLimit-Remaining') return rateRemainingName
  return name
}

export function openExchange(res: HttpResponse, method: string, requestId: string, startedMs: number, onSettled: (exchange: Exchange) => void, server: ServerState): Exchange {
  return { res, method, requestId, startedMs, route: null, aborted: false, answered: false, status: 0, streaming: false, onSettled, server }
}

/**
 * Called when the request handler returns: an exchange not yet answered (a body to read, a durable
 * barrier to wait for, a stream under way) must watch for the client going away, because uWS frees the
 * response then and touching it after that would crash the process. One answered within the handler
 * needs no watch: uWS is done with it. (Registering costs a V8 global handle per request: most reads
 * are answered at once.)
 */
export function watchAborted(exchange: Exchange): void {
  if (exchange.answered && !exchange.streaming) return
  exchange.res.onAborted(() => {
    exchange.aborted = true
    // A stream cut short counts as a client gone (499), not as the status its headers said.
    if (exchange.streaming) exchange.answered = false
    if (!exchange.answered) exchange.onSettled(exchange)
  })
}

/**
 * Headers must be read before the handler returns: uWS reuses the request object after that.
 * getHeader answers '' both for an absent and for an empty header (and the first occurrence of a name);
 * names in `presenceMatters` (some of `names`) must tell the two apart, which only forEach does. They are
 * looked up first: when one came empty or not at all (an unkeyed POST, most writes), every name is read
 * in that one forEach pass instead of a getHeader call each besides (test/edge/read-headers.test.ts: the
 * same headers either way).
 */
export function readHeaders(req: HttpRequest, names: readonly string[], presenceMatters: readonly string[] = []): Map<string, string> {
  const headers = new Map<string, string>()
  for (let i = 0; i < presenceMatters.length; i++) {
    const value = req.getHeader(presenceMatters[i])
    if (value === '') return readEveryHeader(req, names, presenceMatters)
    headers.set(presenceMatters[i], value)
  }
  for (let i = 0; i < names.length; i++) {
    const name = names[i]
    if (headers.has(name)) continue
    const value = req.getHeader(name)
    if (value !== '') headers.set(name, value)
  }
  return headers
}

/** `names` in one forEach pass: the first occurrence of each kept, then the empty ones dropped unless their presence matters. */
function readEveryHeader(req: HttpRequest, names: readonly string[], presenceMatters: readonly string[]): Map<string, string> {
  const headers = new Map<string, string>()
  req.forEach((name, value) => { if (!headers.has(name) && names.includes(name)) headers.set(name, value) })
  for (let i = 0; i < names.length; i++) if (headers.get(names[i]) === '' && !presenceMatters.includes(names[i])) headers.delete(names[i])
  return headers
}

/** Collects the body up to bytesMax; past it, keeps draining but drops the bytes. */
export function readBody(exchange: Exchange, bytesMax: number, done: (body: ReadBody) => void): void {
  const chunks: Buffer[] = []
  let length = 0
  let tooLarge = false
  exchange.res.onData((chunk, isLast) => {
    if (!tooLarge) {
      length += chunk.byteLength
      if (length > bytesMax) {
        tooLarge = true
        chunks.length = 0
      } else {
        // uWS reuses the chunk's memory after this callback: copy it, once (into Node's pool when small).
        chunks.push(Buffer.copyBytesFrom(new Uint8Array(chunk)))
      }
    }
    if (!isLast) return
    // Most bodies come in one chunk: that copy is the body.
    done({ bytes: tooLarge ? null : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, length) })
  })
}

export function send(exchange: Exchange, status: number, body: string | Buffer, headers: readonly (readonly [string, string])[], contentType = 'application/json'): void {
  if (exchange.aborted || exchange.answered) return
  exchange.answered = true
  exchange.status = status
  exchange.onSettled(exchange)
  // uWS runs the cork's callback at once: one callback for every answer, fed through `corked`, saves a closure per answer.
  corked.exchange = exchange
  corked.status = status
  corked.body = body
  corked.headers = headers
  corked.contentType = contentType
  exchange.res.cork(writeCorked)
}

/** The answer being written inside res.cork (never more than one: writing it calls nothing that answers). */
const corked: { exchange: Exchange | null; status: number; body: string | Buffer; headers: readonly (readonly [string, string])[]; contentType: string } = {
  exchange: null, status: 0, body: '', headers: [], contentType: '',
}

function writeCorked(): void {
  const { exchange, status, body, headers, contentType } = corked
  corked.exchange = null
  corked.body = ''
  write(exchange!, status, body, headers, contentType)
}

/** The answer's bytes, inside the cork: status, headers, body go out as one write. */
function write(exchange: Exchange, status: number, body: string | Buffer, headers: readonly (readonly [string, string])[], contentType: string): void {
  const res = exchange.res
  const closeConnection = exchange.server.closing
  res.writeStatus(statusLineOf(status))
  res.writeHeader(requestIdName, exchange.requestId)
  for (let i = 0; i < headers.length; i++) {
    const name = headers[i][0]
    res.writeHeader(headerNameOf(name), headers[i][1])
  }
  // Without a body uWS can close the connection only by also writing Content-Length: 0, wrong after
  // a 204 or a HEAD; the header alone makes the client close it, which the drain waits for.
  if (closeConnection && (status === 204 || exchange.method === 'HEAD')) res.writeHeader('connection', 'close')
  if (status === 204) {
    res.endWithoutBody()
    return
  }
  res.writeHeader(contentTypeName, contentType === 'application/json' ? jsonContentType : contentType)
  if (exchange.method === 'HEAD') return endHead(res, body)
  res.end(body, closeConnection)
}

/**
 * A streamed answer (the exports): status and headers at once, then each chunk `pull` gives, written
 * corked; when uWS could not send a chunk whole (the client reads slower than we write), the next is
 * pulled only once onWritable says the socket drained, so memory holds at most a chunk or two. The body
 * goes chunked (no Content-Length is known beforehand). A failure after the headers can only cut the
 * connection: the client sees a truncated body, never a complete-looking one.
 */
export function sendStream(exchange: Exchange, status: number, headers: readonly (readonly [string, string])[], pull: Pull, close: () => void): void {
  if (exchange.aborted || exchange.answered) return close()
  exchange.answered = true
  exchange.streaming = true
  exchange.status = status
  const res = exchange.res
  const settle = (): void => {
    exchange.streaming = false
    close()
    exchange.onSettled(exchange)
  }
  res.cork(() => {
    res.writeStatus(`${status} ${statusText[status] ?? 'Unknown'}`)
    res.writeHeader('Request-Id', exchange.requestId)
    for (const [name, value] of headers) res.writeHeader(name, value)
    // During the drain the answer asks the client to close the connection, as write() does; only the headers
    // can say so for a chunked body (see the end below).
    if (exchange.server.closing) res.writeHeader('connection', 'close')
    if (exchange.method === 'HEAD') res.endWithoutBody()
  })
  if (exchange.method === 'HEAD') return settle()
  const pump = (): void => pull((chunk, error) => {
    if (exchange.aborted) return close()
    if (error !== null) {
      res.close()
      return settle()
    }
    if (chunk === null) {
      // Never end(…, true) here: uWS would then write its Connection: close header after the headers, into
      // the body's last chunk, and the client would read a broken body. The header above asks the client to
      // close; a stream begun before the drain leaves its connection as any other kept alive (drain.ts).
      res.cork(() => res.end())
      return settle()
    }
    let sent = true
    res.cork(() => { sent = res.write(chunk) })
    if (sent) return void setImmediate(pump)
    res.onWritable(() => {
      pump()
      return true
    })
  })
  pump()
}

/**
 * HEAD answers as GET would, without the body (RFC 9110 9.3.2), so Content-Length is the GET body's.
 * uWS would send the body after a HEAD if given one, and endWithoutBody(length) leaves the response
 * open waiting for those bytes (the next request on the connection then aborts it): so the header is
 * written by hand and the response ended without a body.
 */
function endHead(res: HttpResponse, body: string | Buffer): void {
  res.writeHeader('content-length', String(Buffer.byteLength(body)))
  res.endWithoutBody()
}
