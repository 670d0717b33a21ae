/** @module The wire types of the WebSocket API (docs/API.md, WebSocket API and live updates) as the client sees them. */

/** What the client needs of a WebSocket: the WHATWG interface (browsers, Node 22) and the `ws` package share it. */
export interface WebSocketLike {
  readonly readyState: number
  send(data: string): void
  close(code?: number, reason?: string): void
  onopen: ((event: unknown) => void) | null
  onmessage: ((event: { readonly data: unknown }) => void) | null
  onclose: ((event: { readonly code: number; readonly reason: string }) => void) | null
  onerror: ((event: unknown) => void) | null
}

export type WebSocketConstructor = new (url: string) => WebSocketLike

export interface StreamResponse<B = any> {
  readonly status: number
  /** Lower-case names: x-ratelimit-limit, x-ratelimit-remaining, retry-after, replayed. */
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON body; null for 204. */
  readonly body: B
}

export interface ReconciliationUpdate {
  readonly type: 'reconciliation'
  /** The window object, as GET /v2/reconciliations/:id answers it. */
  readonly data: { readonly id: string; readonly residual: number; readonly state: string; readonly [field: string]: unknown }
}

export interface BalanceUpdate {
  readonly type: 'balance'
  readonly data: { readonly account: string; readonly name: string; readonly currency?: string; readonly balance: number; readonly at: string }
}

export type Update = ReconciliationUpdate | BalanceUpdate

export interface Topics {
  readonly reconciliations?: readonly string[]
  /** Names or ids. */
  readonly accounts?: readonly string[]
}

export interface Subscription {
  /** The window ids and account ids watched (names resolved). */
  readonly reconciliations: readonly string[]
  readonly accounts: readonly string[]
  unsubscribe(): Promise<void>
}

export interface ConnectOptions {
  /**
   * The API key (tu_…): the upgrade's Authorization header with the `ws` package (frames up to the import limit);
   * with a WHATWG WebSocket, which cannot set headers, the first message (frames of at most 4 KiB then:
   * docs/API.md, "WebSocket API and live updates").
   */
  readonly key: string
  /** A WebSocket class; default: the global one (Node 22, browsers), else the `ws` package (Node 20). */
  readonly WebSocket?: WebSocketConstructor
  /**
   * Reconnect after a drop (default true), waiting 100 ms, doubling to at most reconnectDelayMaxMs. Only a
   * connection that was authenticated once is restored: a first connection that fails rejects connect() and stops.
   */
  readonly reconnect?: boolean
  readonly reconnectDelayMaxMs?: number
  /** Told of each reconnect, after the subscriptions were made again. */
  readonly onReconnect?: () => void
}

/** The server's refusal of a message (not a response to a request). */
export class StreamError extends Error {
  readonly code: string
  readonly details: readonly { readonly path: string; readonly message: string }[]

  constructor(code: string, message: string, details: readonly { readonly path: string; readonly message: string }[] = []) {
    super(message)
    this.name = 'StreamError'
    this.code = code
    this.details = details
  }
}
