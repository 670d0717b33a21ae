/** @module What a /v2 route declares (method, path, scope, body rules) and what its handler receives. */

import type { Rejection } from '../errors.js'
import type { WorkspaceActor, Submitted } from '../actor/workspace-actor.js'
import type { CommandEnvelope } from '../ledger/commands.js'
import type { KeyRecord, Scope, WorkspaceRecord } from '../ledger/system.js'
import type { Validator } from './schemas/validate.js'

export interface RouteContext {
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  /** The validated body (undefined for routes without one). */
  readonly body: unknown
  readonly key: KeyRecord
  readonly workspace: WorkspaceRecord
  readonly actor: WorkspaceActor
  /** The clock, read once for this request. */
  readonly atMs: number
  readonly envelope: CommandEnvelope
}

export type BodyParser = (bytes: Buffer, contentType: string) => { ok: true; value: unknown } | Rejection

export interface V2Route {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  readonly pattern: string
  readonly scope: Scope
  /** Present on routes that take a body. */
  readonly body?: {
    readonly validate: Validator<unknown>
    readonly bytesMax?: number
    /** Overrides JSON parsing (the CSV import); returns the value to validate. */
    readonly parse?: BodyParser
  }
  readonly handle: (context: RouteContext) => Submitted | Rejection
  /** Success status used in docs; the outcome carries the real one. */
  readonly summary: string
}
