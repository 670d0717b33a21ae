/** @module A completion: an answer from an actor and the moment it may leave, once the log is durable up to everything it rests on. */

import type { Outcome } from '../ledger/outcome.js'

/** What a completion waits on: the log's durable point (CommandLog.afterDurable). */
export interface DurableWaiter {
  afterDurable(seq: number, callback: (error: Error | null) => void): void
}

/**
 * The outcome is known at once (the actor runs synchronously); the answer may only leave after the
 * flush that makes the state it was computed from durable, so callers wait through whenDurable and
 * never reach the log themselves. A class, not a closure: one allocation per answer, as before.
 */
export class Submitted {
  readonly outcome: Outcome
  /** The last seq of the actor applied when the outcome was computed. */
  readonly barrierSeq: number
  readonly #log: DurableWaiter

  constructor(outcome: Outcome, barrierSeq: number, log: DurableWaiter) {
    this.outcome = outcome
    this.barrierSeq = barrierSeq
    this.#log = log
  }

  /** The same completion with fields added to an accepted answer's body (a new key's secret, which is never logged). */
  withFields(fields: Readonly<Record<string, unknown>>): Submitted {
    if (!this.outcome.ok) return this
    // json, if the command built one, no longer matches the body: the reply then serialises the body.
    return new Submitted({ ...this.outcome, json: undefined, body: { ...(this.outcome.body as object), ...fields } }, this.barrierSeq, this.#log)
  }

  /** Calls back once durable (error null), or with the log's failure: the answer must then be 503. */
  whenDurable(callback: (error: Error | null) => void): void {
    this.#log.afterDurable(this.barrierSeq, callback)
  }
}
