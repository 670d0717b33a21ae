/**
 * @module The unread bytes in the WebSockets' send buffers, per API key and over the process, each under its
 * bound (docs/API.md, "WebSocket API and live updates"). uWebSockets.js bounds one socket alone
 * (maxBackpressure); a key with many sockets that read nothing, or many such keys, would add them up. Past a
 * bound, the socket holding the most unread bytes (the slowest reader) is closed at once, which frees them.
 */

import type { BufferWatcher, StreamSession } from './session.js'

interface KeyGroup {
  bytes: number
  readonly sessions: Set<StreamSession>
}

/**
 * What a stream endpoint holds to bound its sockets' unread bytes: this class on one thread, or
 * edge/shared-send-buffers.ts when several threads serve sockets and the bounds are the process's.
 */
export interface SendBufferCounts extends BufferWatcher {
  readonly keyBytesMax: number
  readonly processBytesMax: number
  /** Sockets closed by this thread for being over a bound (the tests and metrics read it). */
  readonly closedCount: number
  /** The unread bytes counted over the process. */
  readonly totalBytes: number
  /** The socket closed: its bytes no longer count. */
  removed(session: StreamSession): void
}

export class SendBuffers implements SendBufferCounts {
  readonly keyBytesMax: number
  readonly processBytesMax: number
  #totalBytes = 0
  readonly #byKey = new Map<string, KeyGroup>()
  /** Sockets closed for being over a bound (the tests and metrics read it). */
  closedCount = 0

  constructor(keyBytesMax: number, processBytesMax: number) {
    this.keyBytesMax = keyBytesMax
    this.processBytesMax = processBytesMax
  }

  get totalBytes(): number {
    return this.#totalBytes
  }

  /** The session wrote (or its buffer drained): its bytes counted again; over a bound, the slowest sockets closed until under it. */
  measured(session: StreamSession): void {
    const group = this.#count(session)
    if (group === null) return
    if (group.bytes > this.keyBytesMax) this.#shed(group.sessions, () => group.bytes, this.keyBytesMax)
    if (this.#totalBytes > this.processBytesMax) this.#shed(this.#allSessions(), () => this.#totalBytes, this.processBytesMax)
  }

  /** The socket closed: its bytes no longer count. */
  removed(session: StreamSession): void {
    const keyId = session.caller?.key?.id
    const group = keyId === undefined ? undefined : this.#byKey.get(keyId)
    if (group === undefined || !group.sessions.delete(session)) return
    group.bytes -= session.countedBytes
    this.#totalBytes -= session.countedBytes
    session.countedBytes = 0
    if (group.sessions.size === 0) this.#byKey.delete(keyId!)
  }

  /** Reads the socket's buffer and moves the counts by the difference; null for a socket not counted (closed, no key). */
  #count(session: StreamSession): KeyGroup | null {
    const keyId = session.caller?.key?.id
    if (session.closed || keyId === undefined) return null
    let group = this.#byKey.get(keyId)
    if (group === undefined) this.#byKey.set(keyId, (group = { bytes: 0, sessions: new Set() }))
    group.sessions.add(session)
    const bytes = session.socket.getBufferedAmount()
    const delta = bytes - session.countedBytes
    session.countedBytes = bytes
    group.bytes += delta
    this.#totalBytes += delta
    return group
  }

  #allSessions(): StreamSession[] {
    const all: StreamSession[] = []
    for (const group of this.#byKey.values()) for (const session of group.sessions) all.push(session)
    return all
  }

  /**
   * Closes the sessions with the most unread bytes until the count is within the bound. Every buffer is read
   * again first: a socket that drained since it last wrote is not taken for a slow one. Runs only past a bound.
   */
  #shed(sessions: Iterable<StreamSession>, current: () => number, bytesMax: number): void {
    const candidates = [...sessions]
    for (const session of candidates) this.#count(session)
    candidates.sort((a, b) => b.countedBytes - a.countedBytes)
    for (const session of candidates) {
      if (current() <= bytesMax || session.countedBytes === 0) return
      this.removed(session)
      this.closedCount++
      session.abort()
    }
  }
}
