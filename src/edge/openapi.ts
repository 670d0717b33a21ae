/**
 * @module The OpenAPI 3.1 document, generated from the route tables and the very typebox schemas that
 * validate requests (typebox schemas are JSON Schema), so the document cannot drift from the server.
 */

import { createRequire } from 'node:module'
import type { TSchema } from 'typebox'
import { errorCatalogue, type ErrorCode } from '../errors.js'
import type { QueryParam } from '../api/query.js'
import { bytesMaxOf } from '../api/lifecycle.js'
import type { AdminRoute, LabeledRoute, ParseFormat, PlainRoute, RouteResponse, V2Route } from '../api/route.js'
import { allowOf, Router } from '../api/router.js'
import { statementFileMediaTypes, statementMediaTypes } from '../api/statement-file.js'
import { namedSchemas } from '../api/schemas/responses.js'
import { streamNamedSchemas } from '../stream/message-schemas.js'
import { streamPathItem } from './openapi-stream.js'

export interface RouteTables {
  readonly v2: readonly V2Route[]
  readonly admin: readonly AdminRoute[]
  readonly plain: readonly PlainRoute[]
}

export interface OpenApiOptions {
  /** The JSON body limit of routes that name none of their own. */
  readonly bodyBytesMax: number
  /** The statement import limit, for routes that name it. */
  readonly importBodyBytesMax: number
}

type Json = Record<string, unknown>

/** One operation, whatever table it comes from: what the document needs to say about it. */
interface Operation {
  readonly route: LabeledRoute
  readonly summary: string
  readonly tag: string
  /** OpenAPI security requirements; [] for none. */
  readonly security: readonly Json[]
  readonly query: readonly QueryParam[]
  readonly body?: { readonly schema: TSchema; readonly bytesMax: number; readonly parseFormat?: ParseFormat | readonly ParseFormat[]; readonly parsesEvery?: true }
  /** POST, PATCH and DELETE under /v2: Idempotency-Key in, Replayed out. */
  readonly idempotent: boolean
  /** Under /v2: X-RateLimit-* on every answer to an authenticated request. */
  readonly rateLimited: boolean
  readonly response: RouteResponse & { readonly mediaType?: string }
  readonly errors: readonly ErrorCode[]
}

const packageVersion: string = createRequire(import.meta.url)('../../package.json').version

const codeOrder = Object.keys(errorCatalogue) as ErrorCode[]

/** Each code once, ordered by status and then as the catalogue lists them. */
function sortedCodes(codes: readonly ErrorCode[]): ErrorCode[] {
  return [...new Set(codes)].sort((a, b) => errorCatalogue[a].status - errorCatalogue[b].status || codeOrder.indexOf(a) - codeOrder.indexOf(b))
}

function pathParams(pattern: string): string[] {
  return pattern.split('/').filter((segment) => segment.startsWith(':')).map((segment) => segment.slice(1))
}

/** The lifecycle's own errors (docs/API.md, Conventions), in its order, then the operation's. */
function v2Errors(route: V2Route): ErrorCode[] {
  const codes: ErrorCode[] = route.scope === null ? ['unauthenticated'] : ['unauthenticated', 'scope_missing']
  if (pathParams(route.pattern).length > 0) codes.push('not_found')
  if (route.method !== 'GET') codes.push('idempotency_conflict', 'request_invalid')
  codes.push('rate_limited')
  if (route.body !== undefined) codes.push('body_too_large', ...(route.body.statementFile === 'every' ? [] : ['json_invalid' as const]), 'request_invalid')
  if (route.query !== undefined && route.query.length > 0) codes.push('request_invalid')
  codes.push(...(route.errors ?? []), 'unavailable')
  return sortedCodes(codes)
}

/** A /v2 body: its own media types, and those of the statement formats where it may be a statement file (every one: no JSON). */
function v2Body(body: NonNullable<V2Route['body']>, bytesMax: number): Operation['body'] {
  const own = body.parseFormat === undefined ? [] : 'mediaType' in body.parseFormat ? [body.parseFormat] : body.parseFormat
  if (body.statementFile === 'every') return { schema: body.validate.schema, bytesMax, parseFormat: [...own, ...statementFileMediaTypes], parsesEvery: true }
  return { schema: body.validate.schema, bytesMax, parseFormat: body.statementFile === 'named' ? [...own, ...statementMediaTypes] : body.parseFormat }
}

function v2Operation(route: V2Route, options: OpenApiOptions): Operation {
  return {
    route, summary: route.summary, tag: route.pattern.split('/')[2] ?? 'v2',
    // No scope: any valid key (an empty list of scopes).
    security: [{ apiKey: route.scope === null ? [] : [route.scope] }],
    query: route.query ?? [],
    body: route.body === undefined ? undefined : v2Body(route.body, bytesMaxOf(route, options)),
    idempotent: route.method !== 'GET', rateLimited: true,
    response: route.response ?? { status: 200, description: 'Success' },
    errors: v2Errors(route),
  }
}

function adminOperation(route: AdminRoute, options: OpenApiOptions): Operation {
  const lifecycle: ErrorCode[] = route.body === undefined ? ['unauthenticated'] : ['unauthenticated', 'body_too_large', 'json_invalid', 'request_invalid']
  return {
    route, summary: route.summary, tag: 'admin', security: [{ adminToken: [] }], query: route.query ?? [],
    body: route.body === undefined ? undefined : { schema: route.body.validate.schema, bytesMax: bytesMaxOf(route, options) },
    idempotent: false, rateLimited: false, response: route.response,
    errors: sortedCodes([...lifecycle, ...route.errors, 'unavailable']),
  }
}

function plainOperation(route: PlainRoute): Operation {
  return {
    route, summary: route.summary, tag: 'operations',
    // `{}` first: the token is optional, needed only when the operator set METRICS_TOKEN.
    security: route.security === 'none' ? [] : [{}, { metricsToken: [] }],
    query: [], idempotent: false, rateLimited: false, response: route.response,
    errors: sortedCodes([...route.errors, 'unavailable']),
  }
}

/** Copies a schema as plain JSON (typebox's own markers are not enumerable) and puts a $ref for each named one. */
function jsonSchema(schema: unknown, refs: ReadonlyMap<unknown, string>, root: unknown = undefined): unknown {
  if (schema !== root && refs.has(schema)) return { $ref: `#/components/schemas/${refs.get(schema)}` }
  if (Array.isArray(schema)) return schema.map((item) => jsonSchema(item, refs))
  if (schema === null || typeof schema !== 'object') return schema
  const copy: Json = {}
  for (const [key, value] of Object.entries(schema)) copy[key] = jsonSchema(value, refs)
  return copy
}

function operationId(route: LabeledRoute): string {
  const pascal = (text: string) => text.split(/[^A-Za-z0-9]+/).filter((part) => part !== '').map((part) => part[0].toUpperCase() + part.slice(1)).join('')
  const segments = route.pattern.split('/').filter((segment) => segment !== '' && segment !== 'v2')
  return route.method.toLowerCase() + segments.map((segment) => (segment.startsWith(':') ? `By${pascal(segment.slice(1))}` : pascal(segment))).join('')
}

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` })

function successHeaders(operation: Operation): Json {
  const headers: Json = { 'Request-Id': headerRef('RequestId') }
  if (operation.rateLimited) Object.assign(headers, { 'X-RateLimit-Limit': headerRef('RateLimitLimit'), 'X-RateLimit-Remaining': headerRef('RateLimitRemaining') })
  if (operation.idempotent) headers.Replayed = headerRef('Replayed')
  // A route that posts entries (it may refuse one as period_locked) warns of a posting into a closed period that is not locked.
  if (operation.errors.includes('period_locked')) headers['Trueup-Warning'] = headerRef('TrueupWarning')
  return headers
}

function errorResponse(operation: Operation, status: number, codes: readonly ErrorCode[]): Json {
  const headers: Json = { 'Request-Id': headerRef('RequestId') }
  // 401 comes before the key is known, so there is no workspace bucket to report.
  if (operation.rateLimited && status !== 401) Object.assign(headers, { 'X-RateLimit-Limit': headerRef('RateLimitLimit'), 'X-RateLimit-Remaining': headerRef('RateLimitRemaining') })
  if (status === 429) headers['Retry-After'] = headerRef('RetryAfter')
  const examples: Json = {}
  for (const code of codes) examples[code] = { summary: errorCatalogue[code].message, value: { error: { code, message: errorCatalogue[code].message } } }
  return {
    description: codes.map((code) => `\`${code}\`: ${errorCatalogue[code].message}`).join(' '),
    headers,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, examples } },
  }
}

function responsesOf(operation: Operation, refs: ReadonlyMap<unknown, string>): Json {
  const { response } = operation
  const success: Json = { description: response.description, headers: successHeaders(operation) }
  // A route may answer several media types (the exports: "application/json, text/csv, application/pdf").
  if (response.content !== undefined) success.content = Object.fromEntries(Object.entries(response.content).map(([type, schema]) => [type, { schema: jsonSchema(schema, refs) }]))
  else if (response.schema !== undefined) success.content = Object.fromEntries((response.mediaType ?? 'application/json').split(', ').map((type) => [type, { schema: jsonSchema(response.schema!, refs) }]))
  const responses: Json = { [String(response.status)]: success }
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of operation.errors) {
    const status = errorCatalogue[code].status
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  for (const [status, codes] of byStatus) responses[String(status)] = errorResponse(operation, status, codes)
  return responses
}

function requestBodyOf(operation: Operation, refs: ReadonlyMap<unknown, string>): Json | undefined {
  const { body } = operation
  if (body === undefined) return undefined
  // A route whose parser reads every body (a statement file) takes no JSON.
  const content: Json = body.parsesEvery === true ? {} : { 'application/json': { schema: jsonSchema(body.schema, refs) } }
  const formats: readonly ParseFormat[] = body.parseFormat === undefined ? [] : 'mediaType' in body.parseFormat ? [body.parseFormat] : body.parseFormat
  for (const format of formats) content[format.mediaType] = { schema: { type: 'string', description: format.description } }
  return { required: true, description: `At most ${body.bytesMax} bytes (413 body_too_large beyond).`, content }
}

function parametersOf(operation: Operation, refs: ReadonlyMap<unknown, string>): Json[] {
  const parameters: Json[] = pathParams(operation.route.pattern).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string', minLength: 1 } }))
  for (const param of operation.query) parameters.push({ name: param.name, in: 'query', required: false, description: param.description, schema: jsonSchema(param.schema, refs) })
  if (operation.idempotent) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' })
  parameters.push({ $ref: '#/components/parameters/RequestId' }, { $ref: '#/components/parameters/XRequestId' })
  return parameters
}

function operationObject(operation: Operation, refs: ReadonlyMap<unknown, string>): Json {
  const object: Json = {
    operationId: operationId(operation.route),
    summary: operation.summary,
    tags: [operation.tag],
    security: operation.security,
    parameters: parametersOf(operation, refs),
  }
  const requestBody = requestBodyOf(operation, refs)
  if (requestBody !== undefined) object.requestBody = requestBody
  object.responses = responsesOf(operation, refs)
  return object
}

const components = {
  securitySchemes: {
    apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (tu_…) of one workspace; each operation names the scope it needs. Create keys with POST /admin/keys.' },
    adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN (printed once at first start, kept in DATA_DIR/admin-token).' },
    metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, when the operator set one.' },
  },
  parameters: {
    IdempotencyKey: {
      name: 'Idempotency-Key', in: 'header', required: false,
      description: 'Makes a retried POST, PATCH or DELETE safe: the same key with the same request replays the first answer (Replayed: true); with a different request it is 409 idempotency_conflict. Scoped to the workspace, kept at least 24 h.',
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]([\\x20-\\x7e]*[\\x21-\\x7e])?$' },
    },
    RequestId: { name: 'Request-Id', in: 'header', required: false, description: 'Your id for this request, echoed in the Request-Id response header and the log line; ignored (and replaced) unless it is 1 to 128 of A-Z a-z 0-9 . _ ~ : / + = @ -.', schema: { type: 'string', minLength: 1, maxLength: 128 } },
    XRequestId: { name: 'X-Request-Id', in: 'header', required: false, description: 'Taken when Request-Id is absent or not usable, under the same rules.', schema: { type: 'string', minLength: 1, maxLength: 128 } },
  },
  headers: {
    RequestId: { description: 'The request\'s id: yours when sane, else generated (a UUID). Quote it when reporting a problem.', schema: { type: 'string' } },
    RateLimitLimit: { description: 'The per-minute limit of the bucket this method draws on (GET: reads; others: writes).', schema: { type: 'integer', minimum: 1 } },
    RateLimitRemaining: { description: 'Whole tokens left in that bucket.', schema: { type: 'integer', minimum: 0 } },
    RetryAfter: { description: 'Whole seconds (at least 1) until a token is back.', schema: { type: 'integer', minimum: 1 } },
    Replayed: { description: 'Present (true) when this is the stored answer to an earlier request with the same Idempotency-Key.', schema: { type: 'string', const: 'true' } },
    TrueupWarning: { description: 'post-close <window id>: an entry was posted into the period of a closed window that is not locked (docs/API.md, Period locks).', schema: { type: 'string' } },
    Allow: { description: 'The methods this path serves, sorted, comma-separated (HEAD wherever GET).', schema: { type: 'string' } },
  },
  responses: {
    MethodNotAllowed: {
      description: `A method this path does not serve (any method the path item does not list; \`x-other-methods\` names them): \`method_not_allowed\`: ${errorCatalogue.method_not_allowed.message} Answered after authentication: 401 first without a valid key or token.`,
      headers: { Allow: headerRef('Allow'), 'Request-Id': headerRef('RequestId') },
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Error' },
          examples: { method_not_allowed: { summary: errorCatalogue.method_not_allowed.message, value: { error: { code: 'method_not_allowed', message: errorCatalogue.method_not_allowed.message } } } },
        },
      },
    },
  },
}

/**
 * What any other method on a path answers: OpenAPI has no operation for "every method not listed", so each path
 * item carries it as an extension: the methods of its Allow header and the 405 response. Allow is what the
 * server sends for that path, found by the same path matching: `/v2/entries/batch` is also `/v2/entries/{id}`
 * (GET), so it allows GET beside its own POST.
 */
function otherMethods(path: string, router: Router<LabeledRoute>): Json {
  // HTTP answers HEAD wherever it serves GET, as the lifecycle's Allow says (Lifecycle.allowedOn).
  return { allow: allowOf(router.methodsOf(path), true).join(', '), response: { $ref: '#/components/responses/MethodNotAllowed' } }
}

/** The whole document. Every route of the tables is in it, whatever table it was added to. */
export function buildOpenApi(tables: RouteTables, options: OpenApiOptions): Json {
  const named: readonly (readonly [string, TSchema])[] = [...namedSchemas, ...streamNamedSchemas]
  const refs = new Map<unknown, string>(named.map(([name, schema]) => [schema, name]))
  const operations = [
    ...tables.plain.map(plainOperation),
    ...tables.v2.map((route) => v2Operation(route, options)),
    ...tables.admin.map((route) => adminOperation(route, options)),
  ]
  const paths: Record<string, Json> = {}
  for (const operation of operations) {
    const path = operation.route.pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
    paths[path] ??= {}
    paths[path][operation.route.method.toLowerCase()] = operationObject(operation, refs)
  }
  // The WebSocket upgrade is in no route table: described on its own, answered by the HTTP server (edge/stream.ts).
  const streamPlain: Operation = { route: { method: 'GET', pattern: '/v2/stream' }, summary: '', tag: 'stream', security: [], query: [], idempotent: false, rateLimited: false, response: { status: 101, description: '' }, errors: [] }
  paths['/v2/stream'] = streamPathItem((status, codes) => errorResponse(streamPlain, status, codes))
  const router = new Router<LabeledRoute>([...tables.plain, ...tables.v2, ...tables.admin, streamPlain.route])
  for (const [path, item] of Object.entries(paths)) item['x-other-methods'] = otherMethods(path, router)
  const schemas: Json = {}
  for (const [name, schema] of named) schemas[name] = jsonSchema(schema, refs, schema)
  return {
    openapi: '3.1.0',
    info: {
      title: 'trueup',
      version: packageVersion,
      summary: 'Double-entry ledger with reconciliation windows',
      description: 'Amounts are integers in minor units (|x| ≤ 2^53−1). Every error answers {"error": {"code", "message", "details"?}}; the codes a route can answer are listed per status, each with an example. See docs/API.md.',
    },
    tags: [...new Set([...operations.map((operation) => operation.tag), 'stream'])].map((name) => ({ name })),
    paths,
    components: { ...components, schemas },
  }
}
