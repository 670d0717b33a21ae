/** @module Cursor pagination over ordered indexes: cursors bound to the list that issued them, and page assembly within a scan budget. */

import { reject, type Rejection } from '../errors.js'

export interface OrderKey {
  readonly atMs: number
  readonly seq: number
}

export const pageLimitDefault = 100
export const pageLimitMax = 1000
/**
 * Items one page may examine, filtered out or not. A filter that keeps few items (a restricted key, a
 * state, a status) would otherwise walk the whole index to fill one page; past this budget the page
 * ends early, possibly empty, with a next_cursor where the walk stopped (docs/API.md, "Lists").
 */
export const pageItemsScannedMax = 10 * pageLimitMax
/**
 * The JSON one page may hold, about (jsonBytesOf). Text from requests and files is bounded now, but a log
 * written before may hold a window with megabytes of statement_ref: a page of a thousand such items would
 * pass what JSON.stringify can build (a RangeError that took the service down). Past this the page ends
 * early, always with its first item, and a next_cursor (docs/API.md, "Lists").
 */
export const pageBytesMax = 8 * 1024 * 1024

export interface Page<T> {
  readonly data: T[]
  readonly next_cursor: string | null
}

/**
 * The identity of one list as a cursor carries it: the list's name and everything that selects its
 * items (its window, its filters). A cursor is accepted only by a request naming the same list with
 * the same filters (docs/API.md, Conventions), so it never starts another list mid-way. Filters enter as a hash:
 * a cursor stays short whatever the filters' length.
 */
export function listScope(list: string, ...filters: readonly (string | number | null)[]): string {
  return `${list}~${hash53(JSON.stringify(filters)).toString(36)}`
}

/** cyrb53: a 53-bit string hash, deterministic and pure; a scope tag, not a security measure. */
function hash53(text: string): number {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ code, 2654435761)
    h2 = Math.imul(h2 ^ code, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return 4294967296 * (2097151 & h2) + (h1 >>> 0)
}

/** Opaque to clients: the list's scope and the next item's position, so a page never repeats or skips an item. */
export function encodeCursor(scope: string, key: OrderKey): string {
  return Buffer.from(`${scope}.${key.atMs}.${key.seq}`).toString('base64url')
}

/** The position a cursor names, or null when this list (scope) did not issue it. */
export function decodeCursor(scope: string, cursor: string): OrderKey | null {
  const text = Buffer.from(cursor, 'base64url').toString('latin1')
  if (!text.startsWith(`${scope}.`)) return null
  const match = /^(-?\d{1,16})\.(\d{1,16})$/.exec(text.slice(scope.length + 1))
  if (match === null) return null
  const atMs = Number(match[1])
  const seq = Number(match[2])
  if (!Number.isSafeInteger(atMs) || !Number.isSafeInteger(seq)) return null
  return { atMs, seq }
}

export function invalidCursor(): Rejection {
  return reject('request_invalid', 'The cursor is not one this list issued (a cursor is valid only for the list and filters that issued it).', [{ path: '/cursor', message: 'invalid cursor' }])
}

/**
 * Cursors of lists kept in creation order (accounts, windows, lines, matches, history, webhooks): the
 * next item's seq, atMs always 0. 1 when absent, null when this list did not issue it.
 */
export function cursorSeq(scope: string, cursor: string | null): number | null {
  if (cursor === null) return 1
  const key = decodeCursor(scope, cursor)
  if (key === null || key.atMs !== 0 || key.seq < 1) return null
  return key.seq
}

export function* seqKeys(fromSeq: number, lastSeq: number): Generator<OrderKey> {
  for (let seq = fromSeq; seq <= lastSeq; seq++) yield { atMs: 0, seq }
}

/** Items in ascending key order from several sorted sources, each key once. */
export function* mergeOrdered(sources: Iterator<OrderKey>[]): Generator<OrderKey> {
  const heads = sources.map((source) => source.next())
  let last: OrderKey | null = null
  for (;;) {
    let best = -1
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i]
      if (head.done === true) continue
      if (best < 0 || compareKeys(head.value, (heads[best] as IteratorYieldResult<OrderKey>).value) < 0) best = i
    }
    if (best < 0) return
    const value = (heads[best] as IteratorYieldResult<OrderKey>).value
    heads[best] = sources[best].next()
    if (last !== null && compareKeys(last, value) === 0) continue
    last = value
    yield value
  }
}

export function compareKeys(a: OrderKey, b: OrderKey): number {
  return a.atMs - b.atMs || a.seq - b.seq
}

/**
 * Takes up to limit accepted items; the cursor names the first item left over. At most
 * pageItemsScannedMax items are examined: then the page ends where the walk stopped, so the work of
 * one request is bounded however few items the filter keeps. An item that would take the page's JSON
 * past pageBytesMax is left for the next page, unless it is the first: a list always advances.
 */
export function collectPage<T>(scope: string, keys: Iterator<OrderKey>, limit: number, view: (key: OrderKey) => T | undefined): Page<T> {
  const data: T[] = []
  let scanned = 0
  let bytes = 0
  for (let next = keys.next(); next.done !== true; next = keys.next()) {
    if (scanned === pageItemsScannedMax) return { data, next_cursor: encodeCursor(scope, next.value) }
    scanned++
    const item = view(next.value)
    if (item === undefined) continue
    if (data.length === limit) return { data, next_cursor: encodeCursor(scope, next.value) }
    bytes += jsonBytesOf(item)
    if (bytes > pageBytesMax && data.length > 0) return { data, next_cursor: encodeCursor(scope, next.value) }
    data.push(item)
  }
  return { data, next_cursor: null }
}

/** Below this many characters a string is counted as 3 bytes a character (UTF-8's most for UTF-16 text) without measuring it. */
const shortStringChars = 64

/**
 * About the bytes of a value's JSON, not below them for text without escapes: strings in UTF-8 (a short
 * one at its most), numbers and keys at their length, 2 bytes of punctuation each. A walk of what the
 * view built, far cheaper than writing it; nesting is the views' own, a few levels.
 */
export function jsonBytesOf(value: unknown): number {
  if (typeof value === 'string') return 2 + (value.length < shortStringChars ? 3 * value.length : Buffer.byteLength(value, 'utf8'))
  if (typeof value !== 'object' || value === null) return 24
  let bytes = 2
  if (Array.isArray(value)) {
    for (const item of value) bytes += 1 + jsonBytesOf(item)
    return bytes
  }
  for (const key in value) bytes += 4 + key.length + jsonBytesOf((value as Record<string, unknown>)[key])
  return bytes
}
