/** @module One WebSocket session: its caller, what it watches, its unanswered requests, and updates coalesced while its reader is slow. */

import type { Caller } from '../api/lifecycle.js'
import type { UpdateSink } from './hub.js'

/** Over this many bytes waiting in a socket's send buffer, updates are coalesced per topic (docs/API.md, WebSocket API and live updates). */
export const coalesceAboveBytes = 1024 * 1024
/** Unanswered requests per socket at most; the excess is answered 429 at once (docs/API.md, WebSocket API and live updates). */
export const inFlightMax = 4096

/** Told after a session wrote or its buffer drained (send-buffers.ts: the unread bytes per key and in all). */
export interface BufferWatcher {
  measured(session: StreamSession): void
}

/** What a session needs of a socket (uWebSockets.js's WebSocket has it). */
export interface SocketLike {
  send(text: string): number
  /** Runs cb with the socket corked: its sends leave in one write (uWebSockets.js). */
  cork(cb: () => void): unknown
  getBufferedAmount(): number
  end(code: number, reason: string): void
  /** Drops the connection at once (no close frame): what it had buffered is freed (uWebSockets.js). */
  close(): void
  /** Joins or leaves a pub/sub topic of the app: what the hub publishes there reaches the socket without a call per socket. */
  subscribe(topic: string): unknown
  unsubscribe(topic: string): unknown
}

export class StreamSession implements UpdateSink {
  readonly socket: SocketLike
  /** Null until authenticated (by the upgrade's Authorization header or the first message). */
  caller: Caller | null = null
  /** Topics watched: `r:<window id>`, `a:<account id>` (hub.ts). */
  /** The caller handed to the lifecycle with each request: rebuilt only when the workspace record changes (messages.ts). */
  requestCaller: Caller | null = null
  readonly topics = new Set<string>()
  inFlight = 0
  closed = false
  /** Updates coalesced away (a newer one of the same topic replaced them): the slow-reader test reads it. */
  coalescedCount = 0
  /**
   * Behind: off the app's topics, its updates kept here (latest per topic) until its buffer drains. A
   * session that keeps up is on them, and the hub's one publish per update reaches it.
   */
  behind = false
  /** Latest update per topic waiting for the send buffer to drain, in the order the topics first waited. */
  readonly #pending = new Map<string, string>()
  /**
   * Messages of this turn of the event loop, sent together corked: answers are released by a group commit
   * all at once, outside any uWebSockets.js callback, where each send would otherwise be a syscall of its own.
   */
  #outbox: string[] = []
  #outboxBytes = 0
  /** The socket's buffered bytes as the watcher last counted them (send-buffers.ts). */
  countedBytes = 0
  readonly #watcher: BufferWatcher | null

  constructor(socket: SocketLike, watcher: BufferWatcher | null = null) {
    this.socket = socket
    this.#watcher = watcher
  }

  get pendingCount(): number {
    return this.#pending.size
  }

  /** An answer or an acknowledgement: always sent (the in-flight bound and maxBackpressure bound them). */
  send(text: string): void {
    if (this.closed) return
    if (this.#outbox.length === 0) queueMicrotask(this.#flush)
    this.#outbox.push(text)
    this.#outboxBytes += text.length
  }

  readonly #flush = (): void => {
    const outbox = this.#outbox
    this.#outbox = []
    this.#outboxBytes = 0
    if (this.closed) return
    this.socket.cork(() => {
      for (const text of outbox) this.socket.send(text)
    })
    this.#watcher?.measured(this)
  }

  /** Bytes waiting to be written: the socket's buffer and this turn's outbox. */
  get bufferedBytes(): number {
    return this.socket.getBufferedAmount() + this.#outboxBytes
  }

  /**
   * An update of a topic this session watches: taken here (true) when its reader is behind (the buffer over
   * 1 MiB: it leaves the app's topics and keeps the latest per topic), else left to the topic's publish (false).
   */
  takes(topic: string, text: string): boolean {
    if (this.closed || !this.topics.has(topic)) return true
    if (!this.behind) {
      if (this.bufferedBytes <= coalesceAboveBytes) return false
      this.behind = true
      for (const each of this.topics) this.socket.unsubscribe(each)
    }
    if (this.#pending.has(topic)) this.coalescedCount++
    this.#pending.set(topic, text)
    return true
  }

  /**
   * A subscription's acknowledgement and current values, written now (before any publish of a later
   * update), then the topics joined: from here the topic's publishes reach it in commit order.
   */
  started(ack: string, values: readonly (readonly [string, string])[]): void {
    if (this.closed) return
    this.socket.cork(() => this.socket.send(ack))
    for (const [topic, text] of values) {
      if (this.takes(topic, text)) continue
      this.socket.cork(() => this.socket.send(text))
      this.socket.subscribe(topic)
    }
    this.#watcher?.measured(this)
  }

  /** The send buffer drained some: send waiting updates while it stays under the bound; once all are out, back on the topics. */
  drained(): void {
    this.#watcher?.measured(this)
    if (!this.behind || this.closed) return
    this.socket.cork(() => {
      for (const [topic, text] of this.#pending) {
        if (this.socket.getBufferedAmount() > coalesceAboveBytes) return
        this.#pending.delete(topic)
        this.socket.send(text)
      }
    })
    if (this.#pending.size > 0 || this.closed) return
    this.behind = false
    for (const topic of this.topics) this.socket.subscribe(topic)
  }

  /** Stops a topic: off the app's topic and its waiting update dropped. */
  stop(topic: string): void {
    this.topics.delete(topic)
    this.#pending.delete(topic)
    if (!this.closed) this.socket.unsubscribe(topic)
  }

  close(code: number, reason: string): void {
    if (this.closed) return
    this.socket.end(code, reason)
    this.closed = true
  }

  /** Drops the connection without a close frame, freeing its buffer at once (over a bound of unread bytes). */
  abort(): void {
    if (this.closed) return
    this.closed = true
    this.socket.close()
  }
}
