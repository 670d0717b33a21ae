/** @module The admin API (not under /v2): workspaces and API keys, behind ADMIN_TOKEN, never rate limited. */

import { randomBytes } from 'node:crypto'
import type { Runtime } from '../actor/runtime.js'
import type { Submitted } from '../actor/workspace-actor.js'
import { errorBody, reject, statusOf, type ErrorCode, type Rejection } from '../errors.js'
import { limitsDefault, type Limits, type Scope } from '../ledger/system.js'
import { canonicalTimeZone } from '../ledger/time-zone-name.js'
import { hashSecret, isAdmin } from './auth.js'
import { readBody, send, type Exchange } from './http.js'
import { parseJson } from './json.js'
import type { LabeledRoute, RouteResponse } from './route.js'
import { Router } from './router.js'
import { keyCreate, workspaceCreate, workspaceUpdate } from './schemas/ledger.js'
import { createdApiKey, workspace } from './schemas/responses.js'
import { validator, type Validator } from './schemas/validate.js'

export interface AdminDependencies {
  readonly runtime: Runtime
  readonly adminToken: string
  readonly clock: () => number
  readonly bodyBytesMax: number
  readonly onLogFailure: (error: Error) => void
}

export interface AdminRoute extends LabeledRoute {
  readonly summary: string
  /** The body's validator (its schema is in the OpenAPI document); absent for routes without a body. */
  readonly validate?: Validator<unknown>
  /** The operation's own error codes; the generator adds 401, 413, 400 and 503 by itself. */
  readonly errors: readonly ErrorCode[]
  readonly response: RouteResponse
  readonly handle: (runtime: Runtime, params: Record<string, string>, body: unknown, atMs: number) => { submitted: Submitted; extra?: Record<string, unknown> }
}

/** Random lower-case base-36 text with at least `bits` bits of entropy. */
export function randomText(bits: number): string {
  const bytes = randomBytes(Math.ceil(bits / 8) + 2)
  let text = ''
  for (const byte of bytes) text += (byte % 36).toString(36)
  return text.slice(0, Math.ceil(bits / Math.log2(36)))
}

export function newKeySecret(): string {
  return `tu_${randomBytes(32).toString('base64url')}`
}

export function createKeyCommand(atMs: number, workspace: string, scopes: readonly Scope[], accounts: readonly string[] | null, name: string | null, secret: string) {
  return { type: 'key.create' as const, at_ms: atMs, id: `key_${randomText(96)}`, workspace, scopes: [...new Set(scopes)], accounts, name, secret_hash: hashSecret(secret) }
}

export const adminRoutes: readonly AdminRoute[] = [
  {
    method: 'POST', pattern: '/admin/workspaces', validate: validator(workspaceCreate), summary: 'Create a workspace',
    errors: ['request_invalid', 'workspace_exists'], response: { status: 201, description: 'The workspace', schema: workspace },
    handle: (runtime, _params, body, atMs) => {
      const input = body as { id: string; timezone: string; limits?: Limits }
      return { submitted: runtime.submitSystem({ type: 'workspace.create', at_ms: atMs, id: input.id, time_zone: canonicalTimeZone(input.timezone) ?? input.timezone, limits: input.limits === undefined ? limitsDefault : { writes_per_minute: input.limits.writes_per_minute, reads_per_minute: input.limits.reads_per_minute }, tag: randomText(40) }) }
    },
  },
  {
    method: 'PATCH', pattern: '/admin/workspaces/:id', validate: validator(workspaceUpdate), summary: 'Change a workspace\'s timezone or limits (apply at once)',
    errors: ['request_invalid', 'not_found'], response: { status: 200, description: 'The workspace', schema: workspace },
    handle: (runtime, params, body, atMs) => {
      const input = body as { timezone?: string; limits?: Partial<Limits> }
      return { submitted: runtime.submitSystem({ type: 'workspace.update', at_ms: atMs, id: params.id, time_zone: input.timezone === undefined ? undefined : canonicalTimeZone(input.timezone) ?? input.timezone, limits: knownLimits(input.limits) }) }
    },
  },
  {
    method: 'POST', pattern: '/admin/keys', validate: validator(keyCreate), summary: 'Create an API key (its secret is shown once)',
    errors: ['request_invalid', 'not_found'], response: { status: 201, description: 'The key with its secret', schema: createdApiKey },
    handle: (runtime, _params, body, atMs) => {
      const input = body as { workspace: string; scopes: Scope[]; accounts?: string[] | null; name?: string | null }
      const secret = newKeySecret()
      return { submitted: runtime.submitSystem(createKeyCommand(atMs, input.workspace, input.scopes, input.accounts ?? null, input.name ?? null, secret)), extra: { secret } }
    },
  },
  {
    method: 'DELETE', pattern: '/admin/keys/:id', summary: 'Revoke an API key at once',
    errors: ['not_found'], response: { status: 204, description: 'Revoked' },
    handle: (runtime, params, _body, atMs) => ({ submitted: runtime.submitSystem({ type: 'key.revoke', at_ms: atMs, id: params.id }) }),
  },
]

const router = new Router(adminRoutes)

function sendRejection(exchange: Exchange, rejection: Rejection): void {
  send(exchange, statusOf(rejection.code), errorBody(rejection), [])
}

export function handleAdmin(deps: AdminDependencies, exchange: Exchange, method: string, path: string, authorization: string | undefined): void {
  const matched = router.match(method, path)
  if (matched === null) return sendRejection(exchange, reject('not_found', `No route ${method} ${path}.`))
  exchange.route = matched.route
  if (!isAdmin(deps.adminToken, authorization)) return sendRejection(exchange, reject('unauthenticated', 'The admin token is required: Authorization: Bearer <ADMIN_TOKEN>.'))
  const { route, params } = matched
  const run = (body: unknown) => {
    const { submitted, extra } = route.handle(deps.runtime, { ...params }, body, deps.clock())
    const { outcome } = submitted
    deps.runtime.log.afterDurable(submitted.barrierSeq, (error) => {
      if (error !== null) {
        sendRejection(exchange, reject('unavailable'))
        return deps.onLogFailure(error)
      }
      if (!outcome.ok) return sendRejection(exchange, outcome)
      send(exchange, outcome.status, outcome.status === 204 ? '' : JSON.stringify({ ...(outcome.body as object), ...extra }), [])
    })
  }
  if (route.validate === undefined) return run(undefined)
  const validate = route.validate
  readBody(exchange, deps.bodyBytesMax, ({ bytes }) => {
    if (bytes === null) return sendRejection(exchange, reject('body_too_large'))
    const parsed = parseJson(bytes)
    if (!parsed.ok) return sendRejection(exchange, parsed)
    const valid = validate(parsed.value)
    if (!valid.ok) return sendRejection(exchange, valid)
    run(valid.value)
  })
}

/** Only the limits the service knows: the schema lets unknown fields through, the state must not keep them. */
function knownLimits(limits: Partial<Limits> | undefined): Partial<Limits> | undefined {
  if (limits === undefined) return undefined
  const known: { -readonly [K in keyof Limits]?: Limits[K] } = {}
  if (limits.writes_per_minute !== undefined) known.writes_per_minute = limits.writes_per_minute
  if (limits.reads_per_minute !== undefined) known.reads_per_minute = limits.reads_per_minute
  return known
}
