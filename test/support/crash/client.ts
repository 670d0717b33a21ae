/** @module Crash loop: a small HTTP client with a time limit on every request, and a seeded random source. */

import type { Exchange } from './model.ts'

export const requestTimeoutMs = 15_000

/** A request that failed without an answer (connection refused or reset: the server died). */
export class NoAnswer extends Error {}

export async function send(baseUrl: string, key: string, method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<Exchange> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey
  let response: Response
  let text: string
  try {
    response = await fetch(baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(requestTimeoutMs) })
    text = await response.text()
  } catch (error) {
    throw new NoAnswer(`${method} ${path}: ${(error as Error).message}`)
  }
  let parsed: unknown = null
  try { parsed = text === '' ? null : JSON.parse(text) } catch { parsed = text }
  return { status: response.status, text, body: parsed, replayed: response.headers.get('replayed') === 'true' }
}

/** Reads every page of a list route (bounded by pagesMax). */
export async function listAll(baseUrl: string, key: string, route: string, pagesMax = 1000): Promise<any[]> {
  const items: any[] = []
  const separator = route.includes('?') ? '&' : '?'
  let cursor: string | null = null
  for (let page = 0; page < pagesMax; page++) {
    const reply = await send(baseUrl, key, 'GET', `${route}${separator}limit=1000${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`)
    if (reply.status !== 200) throw new Error(`GET ${route}: ${reply.status} ${reply.text.slice(0, 300)}`)
    items.push(...reply.body.data)
    cursor = reply.body.next_cursor
    if (cursor === null) return items
  }
  throw new Error(`GET ${route}: more than ${pagesMax} pages`)
}

/** mulberry32: small, fast, seeded; a failing run is reproduced from its printed seed. */
export class Random {
  #state: number

  constructor(seed: number) {
    this.#state = seed >>> 0
  }

  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0
    let value = this.#state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n)
  }

  /** An integer in [low, high]. */
  between(low: number, high: number): number {
    return low + this.below(high - low + 1)
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]
  }

  chance(probability: number): boolean {
    return this.next() < probability
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
