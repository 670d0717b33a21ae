/** @module Idempotency-Key at the edge: key syntax and the request fingerprint that replays must match. */

import { createHash } from 'node:crypto'

const keyPattern = /^[\x21-\x7e]([\x20-\x7e]{0,253}[\x21-\x7e])?$/

/** 1..255 printable ASCII (docs/API.md, Retries and Idempotency-Key); surrounding spaces are not part of a key. */
export function isIdempotencyKey(key: string): boolean {
  return key.length >= 1 && key.length <= 255 && keyPattern.test(key)
}

/** JSON with object keys sorted at every depth, so key order does not change the fingerprint. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const object = value as Record<string, unknown>
  const keys = Object.keys(object).sort()
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key])}`).join(',')}}`
}

/** Same method, path and JSON-equal body (byte-equal for non-JSON bodies) give the same fingerprint. */
export function fingerprint(method: string, path: string, body: { json: unknown } | { bytes: Buffer }): string {
  const hash = createHash('sha256').update(`${method} ${path}\n`)
  if ('json' in body) hash.update(`json:${canonicalJson(body.json)}`)
  else hash.update('bytes:').update(body.bytes)
  return hash.digest('base64url')
}
