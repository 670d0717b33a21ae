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
 * A kept-alive connection whose last answer came before the shutdown carries no Connection: close, so
 * its client may send another request on it at any moment; closing it then would reset that request.
 * So the drain keeps such connections open until their clients close them (every answer during the
 * drain says Connection: close), and closes what is left only once no request has come for this long:
 * what is left then is idle (a client's connection pool), not a client in the middle of its work.
 */
const quietMs = 200
const pollMs = 10

export class Drain {
  /** Read by every answer: once closing, answers ask the client to close the connection. */
  closing = false
  #inFlightCount = 0
  #connectionsCount = 0
  #refusedCount = 0
  #lastActivityMs = 0

  requestStarted(): void {
    this.#inFlightCount++
    this.#lastActivityMs = performance.now()
  }

  requestSettled(): void {
    this.#inFlightCount--
    this.#lastActivityMs = performance.now()
  }

  requestRefused(): void {
    this.#refusedCount++
  }

  /** uWS's filter callback: +1 when a connection opens, -1 when it closes. */
  connectionsChanged(change: number): void {
    this.#connectionsCount += change
  }

  /**
   * Stops new connections (`stopListening`), waits until every connection is closed, or nothing is in
   * flight and no request came for quietMs, or graceMs passed; then `closeAll` closes what is left.
   */
  async close(graceMs: number, stopListening: () => void, closeAll: () => void): Promise<DrainReport> {
    this.closing = true
    const inFlightCount = this.#inFlightCount
    this.#lastActivityMs = performance.now()
    stopListening()
    const deadlineMs = performance.now() + graceMs
    while (this.#connectionsCount > 0 && performance.now() < deadlineMs) {
      if (this.#inFlightCount === 0 && performance.now() - this.#lastActivityMs >= quietMs) break
      await new Promise((done) => setTimeout(done, pollMs))
    }
    const report = { inFlightCount, refusedCount: this.#refusedCount, abandonedCount: this.#inFlightCount, connectionsClosedCount: this.#connectionsCount }
    closeAll()
    return report
  }
}
