/** @module A /v2 route handler's context built by hand (the lifecycle's stages skipped), and the route found by method and pattern. */

import type { RouteContext, V2Route } from '../../src/api/route.ts'
import type { CommandEnvelope } from '../../src/ledger/commands.ts'
import { currencyDefault, limitsDefault, scopes, settingsDefault, type KeyRecord, type WorkspaceRecord, type WorkspaceSettings } from '../../src/ledger/system.ts'

export const atMs = Date.UTC(2026, 10, 27, 12)
export const envelope: CommandEnvelope = { at_ms: atMs, key_id: 'key_1', visibility: null }
export const envelopeKeyed: CommandEnvelope = { ...envelope, idempotency: { key: 'retry-1', fingerprint: 'fp' } }

export function workspaceRecord(settings: WorkspaceSettings = settingsDefault, timeZone = 'UTC', currency = currencyDefault): WorkspaceRecord {
  return { id: 'ws_1', timeZone, currency, limits: limitsDefault, limitsChangedAtMs: 0, settings, tag: 'tag1', createdAtMs: 0, sealKey: null, sealKeyAtCreation: false }
}

export const keyRecord: KeyRecord = { id: 'key_1', workspace: 'ws_1', scopes, accounts: null, name: 'ops', secretHash: '0'.repeat(64), createdAtMs: 0, revokedAtMs: null }

export interface ContextParts {
  readonly params?: Readonly<Record<string, string>>
  readonly query?: Readonly<Record<string, unknown>>
  readonly body?: unknown
  readonly workspace?: WorkspaceRecord
  readonly envelope?: CommandEnvelope
  readonly key?: KeyRecord
}

/** The context the lifecycle would hand the handler once every stage before it passed. */
export function contextOf(parts: ContextParts = {}): RouteContext {
  return {
    params: parts.params ?? {}, query: parts.query ?? {}, body: parts.body, key: parts.key ?? keyRecord,
    workspace: parts.workspace ?? workspaceRecord(), atMs, envelope: parts.envelope ?? envelope,
  }
}

export function routeOf(routes: readonly V2Route[], method: string, pattern: string): V2Route {
  const route = routes.find((candidate) => candidate.method === method && candidate.pattern === pattern)
  if (route === undefined) throw new Error(`no route ${method} ${pattern}`)
  return route
}

/** Calls the route's handler as the lifecycle does after its body passed the route's own validator (which must accept it). */
export function handled(route: V2Route, parts: ContextParts = {}): unknown {
  let body = parts.body
  if (route.body !== undefined && body !== undefined) {
    const checked = route.body.validate(body)
    if (!checked.ok) throw new Error(`the route's schema refused the body: ${JSON.stringify(checked)}`)
    body = checked.value
  }
  return route.handle(contextOf({ ...parts, body }))
}
