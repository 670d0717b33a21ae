/** @module Test support: small typed helpers over `call` for the admin API, accounts, entries and error bodies. */

import { call, type Reply } from './service.ts'

export const scopesAll = ['accounts:read', 'accounts:write', 'entries:read', 'entries:write', 'recon:read', 'recon:write', 'recon:approve', 'hooks:read', 'hooks:write'] as const
export type Scope = (typeof scopesAll)[number]

/** RFC 3339 in UTC with milliseconds, as every timestamp comes back (docs/API.md, Conventions). */
export const timestampUtcMsPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

export interface Target {
  readonly baseUrl: string
  readonly adminToken: string
}

export interface CreatedKey {
  readonly id: string
  readonly secret: string
}

/** Limits high enough that a test never meets the rate budget (rate limits are tested elsewhere). */
export const limitsGenerous = { writes_per_minute: 10_000_000, reads_per_minute: 10_000_000 } as const

export async function adminCreateWorkspace(target: Target, id: string, timezone = 'UTC'): Promise<Reply> {
  return call(target.baseUrl, 'POST', '/admin/workspaces', { key: target.adminToken, body: { id, timezone, limits: limitsGenerous } })
}

export async function raiseLimits(target: Target, workspace: string): Promise<void> {
  const reply = await call(target.baseUrl, 'PATCH', `/admin/workspaces/${workspace}`, { key: target.adminToken, body: { limits: limitsGenerous } })
  if (reply.status !== 200) throw new Error(`raising limits of ${workspace}: ${reply.status} ${reply.text}`)
}

export async function adminCreateKey(target: Target, workspace: string, scopes: readonly Scope[], accounts?: readonly string[]): Promise<CreatedKey> {
  const body: Record<string, unknown> = { workspace, scopes }
  if (accounts !== undefined) body.accounts = accounts
  const reply = await call(target.baseUrl, 'POST', '/admin/keys', { key: target.adminToken, body })
  if (reply.status !== 201) throw new Error(`creating a key: ${reply.status} ${reply.text}`)
  return { id: reply.body.id, secret: reply.body.secret }
}

export async function createAccount(baseUrl: string, key: string, name: string, tags?: string[]): Promise<any> {
  const reply = await call(baseUrl, 'POST', '/v2/accounts', { key, body: tags === undefined ? { name } : { name, tags } })
  if (reply.status !== 201) throw new Error(`creating account ${name}: ${reply.status} ${reply.text}`)
  return reply.body
}

export interface Line {
  readonly account: string
  readonly amount: number
}

export async function postEntry(baseUrl: string, key: string, lines: readonly Line[], extra: Record<string, unknown> = {}): Promise<Reply> {
  return call(baseUrl, 'POST', '/v2/entries', { key, body: { lines, ...extra } })
}

/** Posts an entry that must be accepted; returns its body. */
export async function postEntryOk(baseUrl: string, key: string, lines: readonly Line[], extra: Record<string, unknown> = {}): Promise<any> {
  const reply = await postEntry(baseUrl, key, lines, extra)
  if (reply.status !== 201) throw new Error(`posting an entry: ${reply.status} ${reply.text}`)
  return reply.body
}

export async function balanceOf(baseUrl: string, key: string, account: string, at?: string): Promise<number> {
  const query = at === undefined ? '' : `?at=${encodeURIComponent(at)}`
  const reply = await call(baseUrl, 'GET', `/v2/accounts/${encodeURIComponent(account)}/balance${query}`, { key })
  if (reply.status !== 200) throw new Error(`balance of ${account}: ${reply.status} ${reply.text}`)
  return reply.body.balance
}

export interface Pages {
  readonly items: any[]
  readonly pages: number
}

/**
 * Walks a list to its end with the given page size. Bounded: fails after pagesMax pages, so a cursor
 * that never ends cannot hang a test.
 */
export async function listAll(baseUrl: string, key: string, route: string, limit: number, pagesMax = 1000): Promise<Pages> {
  const items: any[] = []
  const separator = route.includes('?') ? '&' : '?'
  let cursor: string | null = null
  for (let pages = 1; pages <= pagesMax; pages++) {
    const query = `${separator}limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`
    const reply = await call(baseUrl, 'GET', route + query, { key })
    if (reply.status !== 200) throw new Error(`listing ${route}: ${reply.status} ${reply.text}`)
    if (!Array.isArray(reply.body.data)) throw new Error(`listing ${route}: no data array in ${reply.text}`)
    if (reply.body.data.length > limit) throw new Error(`listing ${route}: page of ${reply.body.data.length} > limit ${limit}`)
    items.push(...reply.body.data)
    cursor = reply.body.next_cursor
    if (cursor === null) return { items, pages }
    if (typeof cursor !== 'string') throw new Error(`listing ${route}: next_cursor is neither a string nor null`)
  }
  throw new Error(`listing ${route}: more than ${pagesMax} pages`)
}

/** Why a body is not the error envelope `{error: {code, message, details?}}`, or null when it is. */
export function envelopeProblem(body: unknown): string | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'body is not a JSON object'
  const keys = Object.keys(body)
  if (keys.length !== 1 || keys[0] !== 'error') return `top-level keys are ${JSON.stringify(keys)}, not ["error"]`
  const error = (body as { error: unknown }).error
  if (error === null || typeof error !== 'object') return 'error is not an object'
  const { code, message, details } = error as Record<string, unknown>
  if (typeof code !== 'string' || !/^[a-z_]+$/.test(code)) return `code ${JSON.stringify(code)} is not a snake_case string`
  if (typeof message !== 'string' || message.length === 0) return 'message is not a non-empty string'
  if (details !== undefined) {
    if (!Array.isArray(details)) return 'details is not an array'
    for (const detail of details) {
      if (detail === null || typeof detail !== 'object') return 'a detail is not an object'
      if (typeof detail.path !== 'string' || !detail.path.startsWith('/')) return `detail path ${JSON.stringify(detail.path)} is not a JSON pointer`
      if (typeof detail.message !== 'string') return 'a detail message is not a string'
    }
  }
  return null
}

/** The few assertions the helpers use; any tap test object has them. */
export interface Asserts {
  equal(found: any, wanted: any, message: string): unknown
  match(found: any, pattern: any, message: string): unknown
}

/** Asserts an error reply: status, code and the envelope shape. */
export function assertError(t: Asserts, reply: Reply, status: number, code: string, label: string): void {
  t.equal(reply.status, status, `${label}: status ${status}`)
  t.equal(reply.body?.error?.code, code, `${label}: code ${code}`)
  t.equal(envelopeProblem(reply.body), null, `${label}: error envelope`)
  t.match(reply.headers.get('content-type') ?? '', /application\/json/, `${label}: content-type json`)
}

/** The detail paths of an error reply. */
export function detailPaths(reply: Reply): string[] {
  const details = reply.body?.error?.details
  return Array.isArray(details) ? details.map((detail: { path: string }) => detail.path) : []
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

export interface WorkspaceView {
  readonly accounts: any[]
  readonly entries: any[]
  /** Per account name, its balance at each of the given instants. */
  readonly balances: Record<string, number[]>
}

/** Everything a client can read of a workspace through one key, for before/after comparisons. */
export async function readWorkspace(baseUrl: string, key: string, instants: readonly string[]): Promise<WorkspaceView> {
  const accounts = (await listAll(baseUrl, key, '/v2/accounts', 1000)).items
  const entries = (await listAll(baseUrl, key, '/v2/entries', 1000)).items
  const balances: Record<string, number[]> = {}
  for (const account of accounts) {
    balances[account.name] = []
    for (const at of instants) balances[account.name].push(await balanceOf(baseUrl, key, account.id, at))
  }
  return { accounts, entries, balances }
}
