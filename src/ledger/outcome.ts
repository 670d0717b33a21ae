/** @module The result of applying a command or answering a query: an accepted value or a rejection. */

import type { Rejection } from '../errors.js'

export interface Accepted {
  readonly ok: true
  readonly status: number
  readonly body: unknown
}

export type Outcome = Accepted | Rejection

export function accept(status: number, body: unknown): Accepted {
  return { ok: true, status, body }
}
