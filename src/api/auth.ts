/** @module Who is calling: bearer API keys by hash, scopes, and the admin token compared in constant time. */

import { createHash, hash, timingSafeEqual } from 'node:crypto'
import type { KeyRecord, Scope, SystemState } from '../ledger/system.js'

/** SHA-256 in hex. crypto.hash, the one-shot form, costs a fifth of createHash: this runs on every request. */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex')
}

function bearerOf(authorization: string | undefined): string | null {
  if (authorization === undefined) return null
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization)
  return match === null ? null : match[1]
}

/**
 * The key for an Authorization header, or null. Keys are found by the sha256 of the secret, so the
 * lookup's timing depends only on a hash the caller cannot steer toward a stored one.
 */
export function authenticate(system: SystemState, authorization: string | undefined): KeyRecord | null {
  if (authorization === undefined) return null
  const hashed = recentHashes.get(authorization) ?? hashOfHeader(authorization)
  if (hashed === null) return null
  const key = system.keysByHash.get(hashed)
  if (key === undefined || key.revokedAtMs !== null) return null
  return key
}

/**
 * The hash of the secret of the Authorization headers seen last: a client sends the same header with every
 * request, and the parse and SHA-256 of it were 2 % of a write's cost. Only the hash is remembered, never
 * the key: revocation and scopes are read from the system state on every request. Bounded: cleared when full.
 */
const recentHashes = new Map<string, string>()
const recentHashesMax = 1_024

function hashOfHeader(authorization: string): string | null {
  const secret = bearerOf(authorization)
  if (secret === null || secret.length > 512) return null
  const hashed = hashSecret(secret)
  if (recentHashes.size >= recentHashesMax) recentHashes.clear()
  recentHashes.set(authorization, hashed)
  return hashed
}

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
