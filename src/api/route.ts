/** @module What a route declares (method, path, scope, body, query, errors, answer) and what its handler receives and builds. */

import type { TSchema } from 'typebox'
import type { ErrorCode, Rejection } from '../errors.js'
import type { CommandEnvelope, WorkspaceCommand } from '../ledger/commands.js'
import type { WorkspaceQuery, WorkspaceSlicedQuery } from '../ledger/queries.js'
import type { KeyRecord, Scope, SystemCommand, WorkspaceRecord } from '../ledger/system.js'
import type { SystemQuery } from '../ledger/system-pages.js'
import type { Reply, Shard } from '../shard/operation.js'
import type { StreamedAnswer } from './streamed-answer.js'
import type { QueryParam, QueryValues } from './query.js'
import type { Validator } from './schemas/validate.js'

export interface RouteContext<B = unknown, Q = Readonly<Record<string, unknown>>> {
  readonly params: Readonly<Record<string, string>>
  /** The route's declared query parameters, read by the lifecycle's `query` stage: each one's value by name. */
  readonly query: Q
  /** The validated body (undefined for routes without one). */
  readonly body: B
  readonly key: KeyRecord
  readonly workspace: WorkspaceRecord
  /** The clock, read once for this request. */
  readonly atMs: number
  readonly envelope: CommandEnvelope
}

/** A read of the workspace, as data (ledger/queries.ts): whole, or in slices (proposals) between which other requests are served. */
export interface Read {
  readonly read: WorkspaceQuery | WorkspaceSlicedQuery
}

/**
 * A read of the system state (workspaces and keys), not of a workspace's: answered after the log is durable
 * up to the last system command, the one it rests on.
 */
export interface SystemRead {
  readonly readsSystem: SystemQuery
}

/** A page of a webhook subscription's deliveries: read beside the log, where the workspace lives. */
export interface DeliveriesRead {
  readonly deliveries: { readonly webhook: string; readonly limit: number; readonly cursor: string | null }
}

/**
 * An answer written in chunks (the exports): its first page read with the request's checks (an error
 * answers the request), then a StreamedAnswer that pulls the rest, page by page, from the shard.
 */
export interface Streamed {
  readonly streamed: (shard: Shard) => Promise<Reply | StreamedAnswer>
}

/** What a /v2 handler builds: a command, a read (of its workspace or of the system), an export, or a refusal of the request's own shape. */
export type Built = WorkspaceCommand | Read | SystemRead | DeliveriesRead | Streamed | Rejection

/** A handler that works off the event loop first (reading a large statement file in a worker) builds later. */
export type BuiltLater = Built | Promise<Built>

/** A route's own body parser (the statement-line CSV); the query string comes along (its values are read by the `query` stage, after the parser). */
export type BodyParser = (bytes: Buffer, contentType: string, query: URLSearchParams) => { ok: true; value: unknown } | Rejection

export interface ParseFormat {
  readonly mediaType: string
  readonly description: string
}

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
  /** The body's schema (src/api/schemas/responses.ts); absent for 204. */
  readonly schema?: TSchema
  /** When not application/json (the exports). */
  readonly mediaType?: string
  /** A schema per media type, when they differ (an export: the JSON pack an object, CSV and PDF text); else `schema` for each of mediaType's. */
  readonly content?: Readonly<Record<string, TSchema>>
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

export interface RouteBody<B> {
  readonly validate: Validator<B>
  /** 'import': the statement import limit (Config.importBodyBytesMax); else the JSON body limit (Config.bodyBytesMax). */
  readonly limit?: 'import'
  /** Overrides JSON parsing (the CSV import) for its media type (text/csv); returns the value to validate. */
  readonly parse?: BodyParser
  /** The media types `parse` reads and their format, for the OpenAPI document. */
  readonly parseFormat?: ParseFormat | readonly ParseFormat[]
  /**
   * The body may be a bank statement file (api/statement-file.ts): `every` body is one, whatever its
   * Content-Type (never JSON); `named`, a body whose Content-Type names a format or that comes with
   * `?format=`. The `parse` stage reads it (in the worker thread) and the handler receives its
   * statements (StatementsRead); the OpenAPI document lists the formats' media types.
   */
  readonly statementFile?: 'every' | 'named'
}

/** What the lifecycle needs of any route (v2 or admin). */
export interface LifecycleRoute extends LabeledRoute {
  /** Absent on admin routes: the admin token holds every right; null: any valid key (GET /v2/workspace). */
  readonly scope?: Scope | null
  readonly body?: RouteBody<unknown>
  /**
   * True for a request of this route that is a read although its method is not GET (a dry run): it
   * draws on the reads budget and ignores Idempotency-Key. Sees the parsed body before its schema check.
   */
  readonly isRead?: (body: unknown) => boolean
  /** Write tokens a request takes (a batch: one per match); 1 when absent. Sees the parsed body before its schema check. */
  readonly writeTokens?: (body: unknown) => number
  /**
   * How a request taking more than one write token is charged: `all` (the default; docs/API.md, Bulk postings: an entry
   * batch is 429 unless every token is there) or `owe` (a batch of matches passes while one token is there,
   * the rest owed and repaid by the refill).
   */
  readonly writeTokensCharge?: 'all' | 'owe'
  /**
   * The query parameters the route reads: the `query` stage reads them (the first bad one answers 400) and
   * hands the handler their values; the OpenAPI document lists them. A parameter not declared is ignored.
   */
  readonly query?: readonly QueryParam[]
}

export interface V2Route<B = unknown, Q extends readonly QueryParam[] = readonly QueryParam[]> extends LifecycleRoute {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  /** null: any valid key of the workspace, whatever its scopes. */
  readonly scope: Scope | null
  /** Present on routes that take a body. */
  readonly body?: RouteBody<B>
  /** Declared once: the handler gets their values as `context.query`, typed from these declarations. */
  readonly query?: Q
  /**
   * The operation's own error codes. The OpenAPI generator adds the lifecycle's by itself
   * (401, 403, 404 for path ids, 409 idempotency_conflict, 413, 400, 429, 503).
   */
  readonly errors?: readonly ErrorCode[]
  readonly response?: RouteResponse
  /** Method syntax on purpose: a route of a typed body is a V2Route (the table is a list of them). */
  handle(context: RouteContext<B, QueryValues<Q>>): BuiltLater
  readonly summary: string
}

/**
 * A /v2 route whose handler sees its body as its schema's type (Static<typeof schema>), not unknown, and its
 * query as the values of the parameters it declares (`query.limit` a number).
 */
// Validators go in module constants: TypeScript does not infer B from a generic call written inline beside the handler.
export function v2Route<B, const Q extends readonly QueryParam[] = []>(route: V2Route<B, Q>): V2Route {
  return route as V2Route
}

export interface AdminContext<B = unknown, Q = Readonly<Record<string, unknown>>> {
  readonly params: Readonly<Record<string, string>>
  /** As RouteContext's: the declared parameters' values. */
  readonly query: Q
  readonly body: B
  readonly atMs: number
}

/** What an admin handler builds: a system command (with fields its answer adds, e.g. a key's secret), a read, or a refusal. */
export type AdminBuilt = SystemCommand | { readonly command: SystemCommand; readonly extra: Readonly<Record<string, unknown>> } | SystemRead | Rejection

export interface AdminRoute<B = unknown, Q extends readonly QueryParam[] = readonly QueryParam[]> extends LifecycleRoute {
  readonly summary: string
  readonly body?: RouteBody<B>
  /** The operation's own error codes; the generator adds 401, 413, 400 and 503 by itself. */
  readonly errors: readonly ErrorCode[]
  readonly response: RouteResponse
  /** The query parameters the route reads (the lists: limit, cursor, a filter), as on /v2 routes. */
  readonly query?: Q
  handle(context: AdminContext<B, QueryValues<Q>>): AdminBuilt
}

export function adminRoute<B, const Q extends readonly QueryParam[] = []>(route: AdminRoute<B, Q>): AdminRoute {
  return route as AdminRoute
}
