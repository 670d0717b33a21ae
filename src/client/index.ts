/**
 * @module `import { connect } from 'trueup/client'`: a small typed client of the WebSocket API (docs/API.md, WebSocket API and live updates).
 * Requests with ids, many in flight; subscriptions with callbacks; once connected, reconnect with backoff and
 * resubscribe. A first connection that fails rejects connect() and leaves nothing running.
 */

import { scanResponse } from './response.js'
import { StreamError, type ConnectOptions, type StreamResponse, type Subscription, type Topics, type Update, type WebSocketConstructor, type WebSocketLike } from './types.js'

export * from './types.js'

const openState = 1
/** Close codes after which reconnecting cannot help: the key is wrong or was revoked. */
const closeUnauthenticated = 4401
/** The close code of a connection that ended without a close frame (RFC 6455 7.4.1), as a refused connection does. */
const closeAbnormal = 1006
const finalCloseCodes = new Set([closeUnauthenticated])
const reconnectDelayMinMs = 100

/** The `ws` package's class: options (headers) may come second, in place of the protocols. */
type WsConstructor = new (url: string, options: { readonly headers: Readonly<Record<string, string>> }) => WebSocketLike

/** The `ws` package's socket underneath (Node's net.Socket): corked while a turn's messages are written. */
interface Corkable {
  cork(): void
  uncork(): void
}

interface Waiter<T> {
  resolve(value: T): void
  reject(error: Error): void
}

interface Active {
  readonly topics: Topics
  readonly onUpdate: (update: Update) => void
  /** Topic keys (`r:<id>`, `a:<id>`) as the server resolved them. */
  keys: string[]
}

interface Ack {
  readonly reconciliations: string[]
  readonly accounts: string[]
}

/** The global WebSocket (Node 22, browsers), else the `ws` package: Node 20 has no global WebSocket. */
async function webSocketClass(given: WebSocketConstructor | undefined): Promise<WebSocketConstructor> {
  if (given !== undefined) return given
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket
  if (global !== undefined) return global
  const name = 'ws'
  try {
    return ((await import(name)) as { WebSocket: WebSocketConstructor }).WebSocket
  } catch {
    throw new Error('trueup/client: this runtime has no global WebSocket (Node 20) and the `ws` package is not installed: `npm install ws` (an optional peer dependency of trueup, needed only here) or pass options.WebSocket')
  }
}

/** Opens a socket to `url` (ws://host:port/v2/stream) and authenticates with the key; resolves once it is accepted. */
export async function connect(url: string, options: ConnectOptions): Promise<StreamClient> {
  const client = new StreamClient(url, options, await webSocketClass(options.WebSocket))
  await client.opened()
  return client
}

export class StreamClient {
  readonly #url: string
  readonly #options: ConnectOptions
  readonly #WebSocket: WebSocketConstructor
  #socket: WebSocketLike | null = null
  #ready!: Promise<void>
  /** The current connection is authenticated: a request need not wait on #ready. */
  #isReady = false
  #readyWaiter!: Waiter<void>
  #nextId = 0
  #delayMs = reconnectDelayMinMs
  #closed = false
  #connectedOnce = false
  readonly #requests = new Map<string, Waiter<StreamResponse>>()
  readonly #acks = new Map<string, Waiter<Ack> & { active?: Active }>()
  readonly #active = new Set<Active>()
  readonly #listeners = new Map<string, Set<Active>>()
  /** Messages of this turn, written together when it ends (#flush). */
  #outbox: string[] = []

  constructor(url: string, options: ConnectOptions, WebSocket: WebSocketConstructor) {
    this.#url = url
    this.#options = options
    this.#WebSocket = WebSocket
    this.#open()
  }

  /** Resolves once the current connection is authenticated. */
  opened(): Promise<void> {
    return this.#ready
  }

  /** One request through the server's request lifecycle; resolves with its response, whatever the status. */
  request<B = any>(method: string, path: string, body?: unknown, headers?: Readonly<Record<string, string>>): Promise<StreamResponse<B>> {
    // Once #ready settles the request goes out (or fails, the socket being closed): never waits twice.
    if (!this.#isReady) return this.#ready.then(() => this.#request<B>(method, path, body, headers))
    return this.#request<B>(method, path, body, headers)
  }

  #request<B>(method: string, path: string, body: unknown, headers: Readonly<Record<string, string>> | undefined): Promise<StreamResponse<B>> {
    const id = String(++this.#nextId)
    // The envelope written out: no object built only to be stringified (the body is stringified as ever).
    const headersText = headers === undefined ? '' : `,"headers":${JSON.stringify(headers)}`
    const bodyText = body === undefined ? undefined : JSON.stringify(body)
    const text = `{"type":"request","id":"${id}","method":${JSON.stringify(method)},"path":${JSON.stringify(path)}${headersText}${bodyText === undefined ? '' : `,"body":${bodyText}`}}`
    return new Promise((resolve, reject) => {
      this.#send(text)
      this.#requests.set(id, { resolve, reject })
    })
  }

  /** Watches windows and accounts; onUpdate gets the current value first, then each durable change. */
  async subscribe(topics: Topics, onUpdate: (update: Update) => void): Promise<Subscription> {
    const active: Active = { topics, onUpdate, keys: [] }
    const ack = await this.#topics('subscribe', topics, active)
    this.#active.add(active)
    return {
      reconciliations: ack.reconciliations, accounts: ack.accounts,
      unsubscribe: async () => {
        this.#active.delete(active)
        this.#unlisten(active)
        await this.#topics('unsubscribe', { reconciliations: ack.reconciliations, accounts: ack.accounts })
      },
    }
  }

  /** Closes for good: no reconnect; what is unanswered fails. */
  close(): void {
    this.#closed = true
    this.#socket?.close(1000, 'client closed')
    this.#failAll(new StreamError('unavailable', 'The client was closed.'))
  }

  async #topics(type: 'subscribe' | 'unsubscribe', topics: Topics, active?: Active): Promise<Ack> {
    await this.#ready
    const id = `s${++this.#nextId}`
    return new Promise((resolve, reject) => {
      this.#send(JSON.stringify({ type, id, reconciliations: topics.reconciliations, accounts: topics.accounts }))
      this.#acks.set(id, { resolve, reject, active })
    })
  }

  /**
   * Queued, and written with the rest of this turn's messages when it ends: with the `ws` package the
   * socket underneath is corked meanwhile, so many requests leave in one write instead of a syscall each.
   */
  #send(text: string): void {
    const socket = this.#socket
    if (socket === null || socket.readyState !== openState) throw new StreamError('unavailable', 'The connection is not open.')
    if (this.#outbox.length === 0) queueMicrotask(this.#flush)
    this.#outbox.push(text)
  }

  readonly #flush = (): void => {
    const outbox = this.#outbox
    this.#outbox = []
    const socket = this.#socket
    // Closed meanwhile: the drop fails these requests (#failAll), as it fails every unanswered one.
    if (socket === null || socket.readyState !== openState) return
    // ws keeps Node's net.Socket as _socket (not public API, hence looked for): browsers and undici have none.
    const stream = (socket as { _socket?: Partial<Corkable> })._socket
    const corkable = typeof stream?.cork === 'function' && typeof stream.uncork === 'function' ? stream as Corkable : null
    corkable?.cork()
    try {
      for (const text of outbox) socket.send(text)
    } finally {
      corkable?.uncork()
    }
  }

  #open(): void {
    this.#isReady = false
    this.#ready = new Promise((resolve, reject) => { this.#readyWaiter = { resolve, reject } })
    // Nobody may be waiting yet: an unhandled rejection must not crash the caller's process.
    this.#ready.catch(() => {})
    // The `ws` package (an EventEmitter, unlike the WHATWG class) sets headers: the key goes in the upgrade,
    // and the socket may send frames up to the import limit. Elsewhere the first message carries it.
    const byHeader = typeof (this.#WebSocket.prototype as { on?: unknown }).on === 'function'
    const socket = byHeader
      ? new (this.#WebSocket as unknown as WsConstructor)(this.#url, { headers: { authorization: `Bearer ${this.#options.key}` } })
      : new this.#WebSocket(this.#url)
    this.#socket = socket
    let refusedKey = false
    let opened = false
    let dropped = false
    // Once per socket, whichever of error and close says so first.
    const drop = (code: number, reason: string) => {
      if (dropped) return
      dropped = true
      this.#dropped(socket, refusedKey ? closeUnauthenticated : code, refusedKey ? 'unauthenticated' : reason)
    }
    socket.onopen = () => {
      opened = true
      if (!byHeader) socket.send(JSON.stringify({ type: 'auth', key: this.#options.key }))
    }
    socket.onmessage = (event) => this.#dispatch(typeof event.data === 'string' ? event.data : String(event.data))
    // A key refused by the upgrade is HTTP 401: `ws` reports it as an error before the close (1006). An error
    // before the socket opened ends it: Node 22's WebSocket (undici) fires no close after a refused connection.
    socket.onerror = (event) => {
      const message = String((event as { message?: unknown } | null)?.message ?? '')
      refusedKey ||= /\b401\b/.test(message)
      if (!opened) drop(closeAbnormal, message)
    }
    socket.onclose = (event) => drop(event.code, event.reason)
  }

  #dispatch(text: string): void {
    const scanned = scanResponse(text)
    if (scanned !== null) return this.#answered(scanned.id, scanned.response)
    const message = JSON.parse(text) as { type: string; id?: string; [field: string]: any }
    switch (message.type) {
      case 'authenticated': return this.#authenticated()
      case 'response': return this.#answered(message.id!, { status: message.status, headers: message.headers, body: message.body })
      case 'subscribed':
      case 'unsubscribed': return this.#acked(message.id!, { reconciliations: message.reconciliations, accounts: message.accounts })
      case 'error': return this.#refused(message.id, new StreamError(message.error.code, message.error.message, message.error.details))
      case 'reconciliation': return this.#deliver(`r:${message.data.id}`, message as Update)
      case 'balance': return this.#deliver(`a:${message.data.account}`, message as Update)
    }
  }

  #answered(id: string, response: StreamResponse): void {
    const waiter = this.#requests.get(id)
    this.#requests.delete(id)
    waiter?.resolve(response)
  }

  #authenticated(): void {
    const reconnected = this.#connectedOnce
    this.#connectedOnce = true
    this.#delayMs = reconnectDelayMinMs
    this.#isReady = true
    this.#readyWaiter.resolve()
    if (!reconnected) return
    // After a reconnect: every subscription again, then tell the caller.
    const again = [...this.#active].map((active) => this.#topics('subscribe', active.topics, active))
    void Promise.allSettled(again).then(() => this.#options.onReconnect?.())
  }

  #acked(id: string, ack: Ack): void {
    const waiter = this.#acks.get(id)
    if (waiter === undefined) return
    this.#acks.delete(id)
    const active = waiter.active
    if (active !== undefined) {
      // Listening before the current values arrive: the server sends them right after this acknowledgement.
      this.#unlisten(active)
      active.keys = [...ack.reconciliations.map((id) => `r:${id}`), ...ack.accounts.map((id) => `a:${id}`)]
      for (const key of active.keys) {
        let set = this.#listeners.get(key)
        if (set === undefined) this.#listeners.set(key, (set = new Set()))
        set.add(active)
      }
    }
    waiter.resolve(ack)
  }

  #unlisten(active: Active): void {
    for (const key of active.keys) this.#listeners.get(key)?.delete(active)
  }

  #refused(id: string | undefined, error: StreamError): void {
    if (id === undefined) return
    const waiter = this.#acks.get(id) ?? this.#requests.get(id)
    this.#acks.delete(id)
    this.#requests.delete(id)
    waiter?.reject(error)
  }

  #deliver(key: string, update: Update): void {
    for (const active of this.#listeners.get(key) ?? []) active.onUpdate(update)
  }

  #dropped(socket: WebSocketLike, code: number, reason: string): void {
    if (socket !== this.#socket) return
    this.#isReady = false
    const error = new StreamError(code === closeUnauthenticated ? 'unauthenticated' : 'unavailable', `The connection closed (${code}${reason === '' ? '' : `: ${reason}`}).`)
    this.#readyWaiter.reject(error)
    this.#failAll(error)
    // Never connected (connect() rejects with this error): there is no session to restore, and a retry
    // timer nobody can stop would keep the caller's process alive. Reconnecting is for a connection that was.
    if (this.#closed || !this.#connectedOnce || this.#options.reconnect === false || finalCloseCodes.has(code)) {
      this.#closed = true
      return
    }
    const delayMs = this.#delayMs
    this.#delayMs = Math.min(this.#delayMs * 2, this.#options.reconnectDelayMaxMs ?? 5_000)
    setTimeout(() => { if (!this.#closed) this.#open() }, delayMs)
  }

  /** Unanswered requests fail on a drop: whether the server applied them is unknown (retry with an Idempotency-Key). */
  #failAll(error: Error): void {
    for (const waiter of this.#requests.values()) waiter.reject(error)
    for (const waiter of this.#acks.values()) waiter.reject(error)
    this.#requests.clear()
    this.#acks.clear()
  }
}
