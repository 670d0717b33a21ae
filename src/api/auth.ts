/** @module Who is calling: bearer API keys by hash, scopes, and the admin token compared in constant time. */

import { createHash, hash, timingSafeEqual } from 'node:crypto'
import type { KeyRecord, Scope, SystemState } from '../ledger/system.js'

/** SHA-256 in hex. crypto.hash, the one-shot form, costs a fifth of createHash: this runs on every request. */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex')
}

/**
 * The secret of `Authorization: Bearer <secret>`, or null. The usual spelling is taken by a comparison, without
 * the regular expression (this runs on every request); any other case or spacing goes through it.
 */
function bearerOf(authorization: string | undefined): string | null {
  if (authorization === undefined) return null
  const length = authorization.length
  if (length > 7 && authorization.startsWith('Bearer ') && authorization.charCodeAt(7) > 32 && authorization.charCodeAt(length - 1) > 32 && authorization.indexOf(' ', 8) < 0) return authorization.slice(7)
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization)
  return match === null ? null : match[1]
}

/**
 * The key for an Authorization header, or null. Keys are found by the sha256 of the secret, so the
 * lookup's timing depends only on a hash the caller cannot steer toward a stored one. Nothing of the
 * header is remembered: a cache by the header would keep the secret in memory (a heap snapshot would show
 * it, revoked or not), and one keyed by a hash of the header costs the same SHA-256 as the secret's own.
 */
export function authenticate(system: SystemState, authorization: string | undefined): KeyRecord | null {
  const secret = bearerOf(authorization)
  if (secret === null || secret.length > secretLengthMax) return null
  const key = system.keysByHash.get(hashSecret(secret))
  if (key === undefined || key.revokedAtMs !== null) return null
  return key
}

/** Longer bearer tokens are no key of ours (a secret is 46 characters): not hashed at all. */
const secretLengthMax = 512

export function hasScope(key: KeyRecord, scope: Scope): boolean {
  return key.scopes.includes(scope)
}

/** How bearer tokens are compared: the constant-time comparison of node:crypto (a test checks it is that one). */
export type TokenComparison = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => boolean
export const tokenComparisonDefault: TokenComparison = timingSafeEqual

/**
 * Constant-time comparison of a bearer token with the expected one (both sides hashed to equal length
 * first). `compare` is injectable so a test can watch the calls without mocking node:crypto.
 */
export function bearerMatches(expected: string, authorization: string | undefined, compare: TokenComparison = tokenComparisonDefault): boolean {
  const presented = bearerOf(authorization)
  if (presented === null) return false
  return compare(createHash('sha256').update(presented).digest(), createHash('sha256').update(expected).digest())
}

/** The admin token (ADMIN_TOKEN) in constant time. */
export function isAdmin(adminToken: string, authorization: string | undefined, compare: TokenComparison = tokenComparisonDefault): boolean {
  return bearerMatches(adminToken, authorization, compare)
}
