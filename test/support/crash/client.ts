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

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
