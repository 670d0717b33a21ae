/** @module Request bodies as JSON: parsed once, with a bound on nesting so nothing downstream recurses without limit. */

import { reject, type Rejection } from '../errors.js'
import { hasLoneSurrogate, surrogateProblem } from './schemas/text.js'

/**
 * Deeper than this and a body is refused before JSON.parse. No request of the contract nests
 * past a handful of levels; the bound keeps every recursive step after parsing (the idempotency
 * fingerprint, the schema check, msgpackr, snapshots) far from the stack limit.
 */
export const jsonDepthMax = 64

const openBrace = 0x7b
const openBracket = 0x5b
const closeBrace = 0x7d
const closeBracket = 0x5d
const quote = 0x22
const backslash = 0x5c

/** Each byte's part in nesting: 0 none (most bytes), then a quote, a backslash, an opening, a closing. */
const byteKinds = new Uint8Array(256)
const kindQuote = 1
const kindBackslash = 2
const kindOpen = 3
const kindClose = 4
byteKinds[quote] = kindQuote
byteKinds[backslash] = kindBackslash
byteKinds[openBrace] = kindOpen
byteKinds[openBracket] = kindOpen
byteKinds[closeBrace] = kindClose
byteKinds[closeBracket] = kindClose

/**
 * The deepest nesting of objects and arrays in the bytes, strings skipped; stops counting past limit.
 * One table look-up per byte, a string's bytes in a loop of their own: a batch body of 8,190 entries
 * (about 1 MB, tens of thousands of brackets) is scanned in two thirds of the time of a test per byte.
 */
export function nestingDepth(bytes: Uint8Array, limit: number = Number.POSITIVE_INFINITY): number {
  let depth = 0
  let deepest = 0
  const length = bytes.length
  for (let i = 0; i < length; i++) {
    const kind = byteKinds[bytes[i]]
    if (kind === 0) continue
    if (kind === kindQuote) {
      // To the closing quote; an escaped character (\" among them) is skipped with its backslash.
      for (i++; i < length; i++) {
        const inner = byteKinds[bytes[i]]
        if (inner === kindQuote) break
        if (inner === kindBackslash) i++
      }
    } else if (kind === kindOpen) {
      depth++
      if (depth > deepest) {
        deepest = depth
        if (deepest > limit) return deepest
      }
    } else if (kind === kindClose) {
      depth--
    }
  }
  return deepest
}

/**
 * Whether the bytes hold at most `limit` of `{` and `[` in all (strings included): then no nesting
 * can be deeper. Buffer.indexOf runs natively, so the usual small body costs a handful of calls
 * and only a body with many brackets pays for the byte-by-byte scan.
 */
function openingsAtMost(bytes: Buffer, limit: number): boolean {
  // No array of the two to loop over: this runs for every request and every WebSocket frame.
  return openingsOf(bytes, openBracket, openingsOf(bytes, openBrace, 0, limit), limit) <= limit
}

/** count plus the occurrences of opening in bytes, counted only until the sum passes limit. */
function openingsOf(bytes: Buffer, opening: number, count: number, limit: number): number {
  for (let at = bytes.indexOf(opening); at >= 0 && count <= limit; at = bytes.indexOf(opening, at + 1)) count++
  return count
}

/**
 * JSON text is UTF-8 (RFC 8259), and bytes that are not would otherwise turn silently into U+FFFD
 * and be stored so. `fatal` makes decoding throw on them instead; it checks as it decodes, which
 * measured as cheap as Buffer.toString alone and cheaper than buffer.isUtf8 before it. The decoder
 * keeps no state between non-streaming calls. `ignoreBOM` leaves a byte-order mark in the text,
 * so JSON.parse refuses it as before.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * The body as JSON: json_invalid if it is not UTF-8 or does not parse, request_invalid if it nests deeper
 * than jsonDepthMax or a string (a key included) holds an unpaired surrogate.
 */
export function parseJson(bytes: Buffer): { ok: true; value: unknown } | Rejection {
  if (!openingsAtMost(bytes, jsonDepthMax) && nestingDepth(bytes, jsonDepthMax) > jsonDepthMax) {
    return reject('request_invalid', `Invalid request: / nested deeper than ${jsonDepthMax} levels`, [{ path: '/', message: `nested deeper than ${jsonDepthMax} levels` }])
  }
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    return reject('json_invalid', 'The request body is not valid UTF-8, so not JSON.')
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return reject('json_invalid')
  }
  // Valid UTF-8 holds no surrogate: only a `\uD8..`-`\uDF..` escape writes one, so most bodies skip the walk.
  if (!surrogateEscape.test(text)) return { ok: true, value }
  const path = loneSurrogatePath(value, '')
  if (path === null) return { ok: true, value }
  return reject('request_invalid', `Invalid request: ${path} ${surrogateProblem}`, [{ path, message: surrogateProblem }])
}

const surrogateEscape = /\\u[dD][89a-fA-F]/

/**
 * The JSON pointer of the first string or key holding an unpaired surrogate, or null. Recursion is safe:
 * parseJson has bounded the nesting to jsonDepthMax.
 */
export function loneSurrogatePath(value: unknown, path: string): string | null {
  if (typeof value === 'string') return hasLoneSurrogate(value) ? (path === '' ? '/' : path) : null
  if (typeof value !== 'object' || value === null) return null
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = loneSurrogatePath(value[index], `${path}/${index}`)
      if (found !== null) return found
    }
    return null
  }
  for (const [key, item] of Object.entries(value)) {
    if (hasLoneSurrogate(key)) return `${path}/${key}`
    const found = loneSurrogatePath(item, `${path}/${key}`)
    if (found !== null) return found
  }
  return null
}
