/** @module The result of applying a command or answering a query: an accepted value or a rejection. */

import type { Rejection } from '../errors.js'
import type { LedgerEvent } from './ledger-event.js'

export interface Accepted {
  readonly ok: true
  readonly status: number
  readonly body: unknown
  /**
   * The body as JSON, when the command built it directly (a posting: the reply and its idempotency record
   * use it, and `body` is then built only if something reads it, synchronously, as the webhook events do).
   * Always exactly JSON.stringify(body).
   */
  readonly json?: string
  /** The events it emits (webhooks); computed only when the workspace has a subscription. */
  readonly events?: readonly LedgerEvent[]
}

export type Outcome = Accepted | Rejection

export function accept(status: number, body: unknown): Accepted {
  return { ok: true, status, body }
}
