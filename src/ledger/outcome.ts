/** @module The result of applying a command or answering a query: an accepted value or a rejection. */

import type { Rejection } from '../errors.js'
import type { LedgerEvent } from './ledger-event.js'

export interface Accepted {
  readonly ok: true
  readonly status: number
  readonly body: unknown
  /**
   * The answer as JSON text, when the operation wrote it itself (a posting, a batch: entries without a
   * view object each, entry-json.ts); else it is JSON.stringify(body). Read it through answerText.
   */
  readonly json?: string
  /** The events it emits (webhooks); computed only when the workspace has a subscription. */
  readonly events?: readonly LedgerEvent[]
  /**
   * The request was already carried out (a statement imported again, docs/API.md, Bank statement formats): this is its
   * stored result, nothing changed, and the actor logs nothing; the answer carries `Replayed: true`.
   */
  readonly replayed?: true
  /** With replayed: the answer stored under the request's Idempotency-Key (its rate tokens go back), json its text. */
  readonly keyReplayed?: true
  /** A warning the answer carries as `Trueup-Warning` (a posting into a closed period that is not locked: `post-close <window id>`). */
  readonly warning?: string
}

export type Outcome = Accepted | Rejection

export function accept(status: number, body: unknown): Accepted {
  return { ok: true, status, body }
}

/** The JSON text of an accepted answer. */
export function answerText(outcome: Accepted): string {
  return outcome.json ?? JSON.stringify(outcome.body)
}
