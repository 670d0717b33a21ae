/** @module The result of applying a command or answering a query: an accepted value or a rejection. */

import type { Rejection } from '../errors.js'
import type { LedgerEvent } from './ledger-event.js'

export interface Accepted {
  readonly ok: true
  readonly status: number
  readonly body: unknown
  /** The events it emits (webhooks); computed only when the workspace has a subscription. */
  readonly events?: readonly LedgerEvent[]
}

export type Outcome = Accepted | Rejection

export function accept(status: number, body: unknown): Accepted {
  return { ok: true, status, body }
}
