/** @module What a route declares (method, path, scope, body, query, errors, answer) and what a /v2 handler receives. */

import type { TSchema } from 'typebox'
import type { ErrorCode, Rejection } from '../errors.js'
import type { WorkspaceActor, Submitted } from '../actor/workspace-actor.js'
import type { CommandEnvelope } from '../ledger/commands.js'
import type { KeyRecord, Scope, WorkspaceRecord } from '../ledger/system.js'
import type { QueryParam } from './query.js'
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

/** What every route kind has: metrics and request logs label by these, the OpenAPI document keys paths by them. */
export interface LabeledRoute {
  readonly method: string
  /** `/v2/accounts/:id/balance`: a `:name` segment is a path parameter. */
  readonly pattern: string
}

/** The success answer of a route, for the OpenAPI document; the outcome carries the real status. */
export interface RouteResponse {
  readonly status: number
  readonly description: string
  /** The body's schema (src/edge/schemas/responses.ts); absent for 204. */
  readonly schema?: TSchema
}

/** A route outside /v2 and /admin that the server answers itself: health, the OpenAPI document, metrics. */
export interface PlainRoute extends LabeledRoute {
  readonly summary: string
  /** none: open to anyone; metricsToken: a bearer token when the operator set METRICS_TOKEN. */
  readonly security: 'none' | 'metricsToken'
  readonly response: RouteResponse & { readonly mediaType: string }
  /** Beyond 503 unavailable (shutting down), which every route can answer. */
  readonly errors: readonly ErrorCode[]
}

export interface V2Route extends LabeledRoute {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  readonly scope: Scope
  /** Present on routes that take a body. */
  readonly body?: {
    readonly validate: Validator<unknown>
    readonly bytesMax?: number
    /** Overrides JSON parsing (the CSV import); returns the value to validate. */
    readonly parse?: BodyParser
    /** The media type `parse` reads and its format, for the OpenAPI document. */
    readonly parseFormat?: { readonly mediaType: string; readonly description: string }
  }
  /**
   * The query parameters the handler reads, each through its own `parse`: the handler and the
   * OpenAPI document share these declarations.
   */
  readonly query?: readonly QueryParam[]
  /**
   * The operation's own error codes. The OpenAPI generator adds the lifecycle's by itself
   * (401, 403, 404 for path ids, 409 idempotency_conflict, 413, 400, 429, 503).
   */
  readonly errors?: readonly ErrorCode[]
  readonly response?: RouteResponse
  readonly handle: (context: RouteContext) => Submitted | Rejection
  readonly summary: string
}
