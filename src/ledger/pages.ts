/** @module Cursor pagination over (atMs, seq)-ordered indexes: opaque cursors and page assembly. */

export interface OrderKey {
  readonly atMs: number
  readonly seq: number
}

export const pageLimitDefault = 100
export const pageLimitMax = 1000

export interface Page<T> {
  readonly data: T[]
  readonly next_cursor: string | null
}

/** Opaque to clients; the next item's position, so a page never repeats or skips an item. */
export function encodeCursor(key: OrderKey): string {
  return Buffer.from(`${key.atMs}.${key.seq}`).toString('base64url')
}

export function decodeCursor(cursor: string): OrderKey | null {
  const match = /^(-?\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'))
  if (match === null) return null
  const atMs = Number(match[1])
  const seq = Number(match[2])
  if (!Number.isSafeInteger(atMs) || !Number.isSafeInteger(seq)) return null
  return { atMs, seq }
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

/** Takes up to limit accepted items; the cursor names the first item left over. */
export function collectPage<T>(keys: Iterator<OrderKey>, limit: number, view: (key: OrderKey) => T | undefined): Page<T> {
  const data: T[] = []
  for (let next = keys.next(); next.done !== true; next = keys.next()) {
    const item = view(next.value)
    if (item === undefined) continue
    if (data.length === limit) return { data, next_cursor: encodeCursor(next.value) }
    data.push(item)
  }
  return { data, next_cursor: null }
}
