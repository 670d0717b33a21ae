/** @module Graceful shutdown of the HTTP edge: counts requests in flight and open connections, and waits for both to end. */

import { performance } from 'node:perf_hooks'

/** What a drain did, for the shutdown line. */
export interface DrainReport {
  /** Requests under way when the shutdown began (each was then answered, unless the grace ran out). */
  readonly inFlightCount: number
  /** Requests that arrived on an open connection during the drain: answered 503 unavailable. */
  readonly refusedCount: number
  /** Requests still unanswered when the grace ran out. */
  readonly abandonedCount: number
  /** Connections still open at the end, closed by the server (idle keep-alive ones, or past the grace). */
  readonly connectionsClosedCount: number
}

/**
 * HTTP/1.1 gives a server two ways to end a kept-alive connection: an answer carrying Connection: close,
 * which the client reads before it sends again, or closing the socket, which races with a request the
 * client may be sending at that moment (it gets a reset for a request the server never saw). So:
 * - every answer written during the drain says Connection: close and its connection is closed after it
 *   (http.ts), so a client that sends during the drain learns before its next request;
 * - a connection idle when the drain began (its last answer said nothing of closing) is given
 *   idleCloseGraceMs to bring its next request, answered 503 + Connection: close like any other;
 * - after that, what is left is closed once nothing is in flight and no request has started or settled for
 *   quietMs (an answer just written has had time to leave and its connection to close), and a pass of the
 *   event loop's I/O found no request waiting (see #noRequestWaiting);
 * - at graceMs whatever is still open is closed, answered or not.
 * uWS gives no handle on one connection, only the count (its filter) and app.close() for all: so the
 * grace is counted from the drain's start for every connection idle then, not from each one's last request.
 * A client that sends its first request after the grace on a connection idle since before the drain can
 * still meet the close: that is HTTP/1.1's own race (the same as meeting an idle timeout), which no server
 * avoids; such a client must retry on a new connection, as it would after a keep-alive timeout.
 */
export const idleCloseGraceMs = 1000
const quietMs = 200
const pollMs = 10

export class Drain {
  /** Read by every answer: once closing, answers ask the client to close the connection. */
  closing = false
  #inFlightCount = 0
  #connectionsCount = 0
  #refusedCount = 0
  #lastActivityMs = 0
  /** Requests started or settled so far: #noRequestWaiting compares it across one pass of the event loop. */
  #activityCount = 0

  requestStarted(): void {
    this.#inFlightCount++
    this.#noteActivity()
  }

  requestSettled(): void {
    this.#inFlightCount--
    this.#noteActivity()
  }

  requestRefused(): void {
    this.#refusedCount++
  }

  /** uWS's filter callback: +1 when a connection opens, -1 when it closes. */
  connectionsChanged(change: number): void {
    this.#connectionsCount += change
  }

  /**
   * Stops new connections (`stopListening`), waits until every connection is closed, or the connections
   * left may be closed (#idleClosable), or graceMs passed; then `closeAll` closes what is left.
   */
  async close(graceMs: number, stopListening: () => void, closeAll: () => void): Promise<DrainReport> {
    this.closing = true
    const inFlightCount = this.#inFlightCount
    const startedMs = performance.now()
    this.#lastActivityMs = startedMs
    stopListening()
    const deadlineMs = startedMs + graceMs
    const idleClosableMs = startedMs + Math.min(idleCloseGraceMs, graceMs)
    while (this.#connectionsCount > 0 && performance.now() < deadlineMs) {
      if (this.#idleClosable(idleClosableMs) && await this.#noRequestWaiting()) break
      await new Promise((done) => setTimeout(done, pollMs))
    }
    const report = { inFlightCount, refusedCount: this.#refusedCount, abandonedCount: this.#inFlightCount, connectionsClosedCount: this.#connectionsCount }
    closeAll()
    return report
  }

  #noteActivity(): void {
    this.#activityCount++
    this.#lastActivityMs = performance.now()
  }

  /** Nothing in flight, the idle connections' grace over, and no request started or settled for quietMs. */
  #idleClosable(idleClosableMs: number): boolean {
    const nowMs = performance.now()
    return this.#inFlightCount === 0 && nowMs >= idleClosableMs && nowMs - this.#lastActivityMs >= quietMs
  }

  /**
   * Timers run before I/O in each turn of the event loop: after the process was descheduled (a loaded
   * machine), the timer that finds the drain idle runs before the sockets are read, so a request already
   * in the kernel's buffer would be reset by the close, unread. setImmediate runs after that turn's I/O
   * pass: a request read in it counts as activity, and the drain waits on.
   */
  async #noRequestWaiting(): Promise<boolean> {
    const activityCount = this.#activityCount
    await new Promise((done) => setImmediate(done))
    return this.#activityCount === activityCount
  }
}
