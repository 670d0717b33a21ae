/** @module The admin API's route table (not under /v2): workspaces and API keys, behind ADMIN_TOKEN, never rate limited. */

import type { Static } from 'typebox'
import { randomBytes, randomInt } from 'node:crypto'
import { currencyDefault, limitsDefault, type Limits, type Scope, type SettingsUpdate } from '../ledger/system.js'
import { canonicalTimeZone } from '../ledger/time-zone-name.js'
import { newSealKeyFields } from '../exports/seal-signature.js'
import { hashSecret } from './auth.js'
import { adminRoute, type AdminRoute } from './route.js'
import { keyCreate, workspaceCreate, workspaceUpdate } from './schemas/ledger.js'
import { cursorQuery, limitQuery, textQuery } from './query.js'
import { apiKeyPage, createdApiKey, workspace, workspacePage } from './schemas/responses.js'
import { validator } from './schemas/validate.js'

const workspaceCreateBody = validator(workspaceCreate)
const workspaceUpdateBody = validator(workspaceUpdate)
const keyCreateBody = validator(keyCreate)
const cursor = cursorQuery(256)
const workspaceFilter = textQuery('workspace', 'Only this workspace\'s keys (404 not_found when there is no such workspace); absent: every workspace\'s', 64)

/**
 * Random lower-case base-36 text with at least `bits` bits of entropy: one uniform base-36 digit (log2 36 bits)
 * per character. A byte per character (`byte % 36`) gave one character per byte and sliced to the length wanted,
 * so there could be fewer characters than the bits asked, each one biased.
 */
/**
 * A workspace's tag: 7 base-36 characters (36 bits), part of every id of the workspace (`acc_` + tag + 9 digits): its
 * ids have had that 20-character shape since the start, and the exports' and the PDF's columns are laid out for it.
 */
export const workspaceTagBits = 36

/**
 * An API key's id: `key_` and 14 base-36 characters (72 bits: an id, not a secret; unique enough by far), 18
 * characters as since the start, the width of the key column of the audit pack's PDF history (src/exports/pack-pdf.ts).
 */
export const keyIdBits = 72

export function randomText(bits: number): string {
  const length = Math.ceil(bits / Math.log2(36))
  let text = ''
  for (let index = 0; index < length; index++) text += randomInt(36).toString(36)
  return text
}

export function newKeySecret(): string {
  return `tu_${randomBytes(32).toString('base64url')}`
}

export function createKeyCommand(atMs: number, workspace: string, scopes: readonly Scope[], accounts: readonly string[] | null, name: string | null, secret: string) {
  return { type: 'key.create' as const, at_ms: atMs, id: `key_${randomText(keyIdBits)}`, workspace, scopes: [...new Set(scopes)], accounts, name, secret_hash: hashSecret(secret) }
}

/** The settings a PATCH names, each field given (docs/API.md, "The workspace"); undefined when it names none. */
function settingsUpdateOf(settings: Static<typeof workspaceUpdate>['settings']): SettingsUpdate | undefined {
  if (settings === undefined) return undefined
  const approvals = settings.approvals === undefined ? undefined : {
    ...(settings.approvals.close_with_residual === undefined ? {} : { close_with_residual: settings.approvals.close_with_residual }),
    ...(settings.approvals.write_off_over === undefined ? {} : { write_off_over: settings.approvals.write_off_over }),
  }
  const update = {
    ...(settings.lock_closed_periods === undefined ? {} : { lock_closed_periods: settings.lock_closed_periods }),
    ...(approvals === undefined ? {} : { approvals }),
  }
  return Object.keys(update).length === 0 ? undefined : update
}

export const adminRoutes: readonly AdminRoute[] = [
  adminRoute({
    method: 'POST', pattern: '/admin/workspaces', body: { validate: workspaceCreateBody }, summary: 'Create a workspace',
    errors: ['request_invalid', 'workspace_exists'], response: { status: 201, description: 'The workspace', schema: workspace },
    handle: ({ body, atMs }) => ({
      type: 'workspace.create', at_ms: atMs, id: body.id, time_zone: canonicalTimeZone(body.timezone) ?? body.timezone, tag: randomText(workspaceTagBits), currency: body.currency ?? currencyDefault, ...newSealKeyFields(),
      limits: body.limits === undefined ? limitsDefault : { writes_per_minute: body.limits.writes_per_minute, reads_per_minute: body.limits.reads_per_minute },
    }),
  }),
  adminRoute({
    method: 'PATCH', pattern: '/admin/workspaces/:id', body: { validate: workspaceUpdateBody }, summary: 'Change a workspace\'s timezone, currency, limits or settings (apply at once)',
    errors: ['request_invalid', 'not_found'], response: { status: 200, description: 'The workspace', schema: workspace },
    handle: ({ params, body, atMs }) => ({
      type: 'workspace.update', at_ms: atMs, id: params.id, limits: knownLimits(body.limits), currency: body.currency,
      settings: settingsUpdateOf(body.settings),
      time_zone: body.timezone === undefined ? undefined : canonicalTimeZone(body.timezone) ?? body.timezone,
    }),
  }),
  adminRoute({
    method: 'GET', pattern: '/admin/workspaces', summary: 'List the workspaces, in creation order',
    query: [limitQuery, cursor], errors: ['request_invalid'], response: { status: 200, description: 'A page of workspaces', schema: workspacePage },
    handle: ({ query }) => ({ readsSystem: { name: 'workspace.list', params: { limit: query.limit, cursor: query.cursor } } }),
  }),
  adminRoute({
    method: 'GET', pattern: '/admin/workspaces/:id', summary: 'Read a workspace',
    errors: ['not_found'], response: { status: 200, description: 'The workspace', schema: workspace },
    handle: ({ params }) => ({ readsSystem: { name: 'workspace.get', params: { workspace: params.id } } }),
  }),
  adminRoute({
    method: 'GET', pattern: '/admin/keys', summary: 'List API keys (revoked ones too), in creation order: never a secret or its hash',
    query: [workspaceFilter, limitQuery, cursor], errors: ['request_invalid', 'not_found'], response: { status: 200, description: 'A page of keys', schema: apiKeyPage },
    handle: ({ query }) => ({ readsSystem: { name: 'key.list', params: { workspace: query.workspace, limit: query.limit, cursor: query.cursor } } }),
  }),
  adminRoute({
    method: 'POST', pattern: '/admin/keys', body: { validate: keyCreateBody }, summary: 'Create an API key (its secret is shown once)',
    errors: ['request_invalid', 'not_found'], response: { status: 201, description: 'The key with its secret', schema: createdApiKey },
    handle: ({ body, atMs }) => {
      const secret = newKeySecret()
      return { command: createKeyCommand(atMs, body.workspace, body.scopes, body.accounts ?? null, body.name ?? null, secret), extra: { secret } }
    },
  }),
  adminRoute({
    method: 'DELETE', pattern: '/admin/keys/:id', summary: 'Revoke an API key at once',
    errors: ['not_found'], response: { status: 204, description: 'Revoked' },
    handle: ({ params, atMs }) => ({ type: 'key.revoke', at_ms: atMs, id: params.id }),
  }),
]

/** The limits given, copied field by field: the command (and the log) never holds the parsed body itself. */
function knownLimits(limits: Partial<Limits> | undefined): Partial<Limits> | undefined {
  if (limits === undefined) return undefined
  const known: { -readonly [K in keyof Limits]?: Limits[K] } = {}
  if (limits.writes_per_minute !== undefined) known.writes_per_minute = limits.writes_per_minute
  if (limits.reads_per_minute !== undefined) known.reads_per_minute = limits.reads_per_minute
  return known
}
