/**
 * @module Test support: a stable, byte-for-byte serialization of in-memory service state (a workspace
 * actor's state, the system state), so a test can assert that a rejected request or a read changed nothing.
 *
 * Why not JSON.stringify: the state holds Maps, Sets, typed arrays and the balance index (SumTree, whose
 * nodes live in private fields and link leaves to each other). This walker writes every one of them in a
 * fixed form, keeps Map and array order (an order change is a state change too), tells -0 from 0 and
 * NaN from null, and fails loudly on a cycle instead of looping.
 */

import { createHash } from 'node:crypto'
import type { Runtime } from '../../src/actor/runtime.ts'

interface Iterable2 { iterate(): Iterable<{ atMs: number; seq: number; amount: number }>; size: number; total: number }

function isSumTreeLike(value: object): value is Iterable2 {
  return typeof (value as { iterate?: unknown }).iterate === 'function' && 'size' in value && 'total' in value
}

/**
 * A class of the state that says what it is with toJSON (Entry, EntryStore: an entry's values live in its
 * workspace's store, and the store's spare capacity is no state) is written as that.
 */
function hasOwnJson(value: object): value is { toJSON(): unknown } {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function' && !(value instanceof Date)
}

function numberText(value: number): string {
  if (Object.is(value, -0)) return '-0'
  if (Number.isNaN(value)) return 'NaN'
  return String(value)
}

/**
 * The serialization of a value; objects list their own enumerable keys sorted, tagged with their class.
 * Iterative, with an explicit stack: a state that (wrongly) holds a client's 10,000-deep JSON must still
 * serialize, so the test reports the state change instead of overflowing the call stack itself.
 */
export function stableSerialize(root: unknown): string {
  try {
    return serializeRecursive(root)
  } catch (error) {
    if (error !== tooDeep) throw error
    return serializeIterative(root)
  }
}

const tooDeep = new Error('stableSerialize: deeper than the recursive walk goes')
const recursiveDepthMax = 500

/** The fast path (no work items allocated); gives up past recursiveDepthMax. Same output as the iterative walk. */
function serializeRecursive(root: unknown): string {
  const out: string[] = []
  const onPath = new Set<object>()
  const walk = (value: unknown, depth: number): void => {
    switch (typeof value) {
      case 'undefined': out.push('undefined'); return
      case 'number': out.push(numberText(value)); return
      case 'bigint': out.push(`${value}n`); return
      case 'string': out.push(JSON.stringify(value)); return
      case 'boolean': out.push(String(value)); return
      case 'function': out.push('<function>'); return
      case 'symbol': out.push(String(value)); return
    }
    if (value === null) { out.push('null'); return }
    if (depth > recursiveDepthMax) throw tooDeep
    const object = value as object
    if (onPath.has(object)) throw new Error('stableSerialize: cycle in state')
    if (ArrayBuffer.isView(object)) {
      out.push(`${object.constructor.name}[${Array.from(object as unknown as ArrayLike<number>, numberText).join(',')}]`)
      return
    }
    if (isSumTreeLike(object)) {
      const points: string[] = [`SumTree(size=${numberText(object.size)},total=${numberText(object.total)})[`]
      for (const point of object.iterate()) points.push(`${numberText(point.atMs)}/${numberText(point.seq)}/${numberText(point.amount)},`)
      points.push(']')
      out.push(points.join(''))
      return
    }
    if (hasOwnJson(object)) { out.push(`${object.constructor.name}:`); walk(object.toJSON(), depth + 1); return }
    onPath.add(object)
    if (Array.isArray(object)) {
      out.push('[')
      for (const item of object) { walk(item, depth + 1); out.push(',') }
      out.push(']')
    } else if (object instanceof Map) {
      out.push('Map{')
      for (const [key, item] of object) { walk(key, depth + 1); out.push('=>'); walk(item, depth + 1); out.push(',') }
      out.push('}')
    } else if (object instanceof Set) {
      out.push('Set{')
      for (const item of object) { walk(item, depth + 1); out.push(',') }
      out.push('}')
    } else {
      out.push(`${object.constructor?.name ?? 'null-prototype'}{`)
      for (const key of Object.keys(object).sort()) {
        out.push(`${JSON.stringify(key)}:`)
        walk((object as Record<string, unknown>)[key], depth + 1)
        out.push(',')
      }
      out.push('}')
    }
    onPath.delete(object)
  }
  walk(root, 0)
  return out.join('')
}

function serializeIterative(root: unknown): string {
  const out: string[] = []
  const onPath = new Set<object>()
  // Work items: a value to write, a literal to emit, or the end of a container (leaves the path).
  type Work = { value: unknown } | { text: string } | { leave: object }
  const stack: Work[] = [{ value: root }]
  const pushReversed = (items: Work[]) => { for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]) }
  while (stack.length > 0) {
    const work = stack.pop()!
    if ('text' in work) { out.push(work.text); continue }
    if ('leave' in work) { onPath.delete(work.leave); continue }
    const value = work.value
    switch (typeof value) {
      case 'undefined': out.push('undefined'); continue
      case 'number': out.push(numberText(value)); continue
      case 'bigint': out.push(`${value}n`); continue
      case 'string': out.push(JSON.stringify(value)); continue
      case 'boolean': out.push(String(value)); continue
      case 'function': out.push('<function>'); continue
      case 'symbol': out.push(String(value)); continue
    }
    if (value === null) { out.push('null'); continue }
    const object = value as object
    if (onPath.has(object)) throw new Error('stableSerialize: cycle in state')
    const items: Work[] = []
    if (hasOwnJson(object)) {
      out.push(`${object.constructor.name}:`)
      stack.push({ value: object.toJSON() })
      continue
    }
    if (Array.isArray(object)) {
      items.push({ text: '[' })
      for (const item of object) items.push({ value: item }, { text: ',' })
      items.push({ text: ']' })
    } else if (object instanceof Map) {
      items.push({ text: 'Map{' })
      for (const [key, item] of object) items.push({ value: key }, { text: '=>' }, { value: item }, { text: ',' })
      items.push({ text: '}' })
    } else if (object instanceof Set) {
      items.push({ text: 'Set{' })
      for (const item of object) items.push({ value: item }, { text: ',' })
      items.push({ text: '}' })
    } else if (ArrayBuffer.isView(object)) {
      out.push(`${object.constructor.name}[${Array.from(object as unknown as ArrayLike<number>, numberText).join(',')}]`)
      continue
    } else if (isSumTreeLike(object)) {
      // The balance index: its points in order and its aggregates (the nodes are private fields).
      const points: string[] = [`SumTree(size=${numberText(object.size)},total=${numberText(object.total)})[`]
      for (const point of object.iterate()) points.push(`${numberText(point.atMs)}/${numberText(point.seq)}/${numberText(point.amount)},`)
      points.push(']')
      out.push(points.join(''))
      continue
    } else {
      const name = object.constructor?.name ?? 'null-prototype'
      items.push({ text: `${name}{` })
      for (const key of Object.keys(object).sort()) items.push({ text: `${JSON.stringify(key)}:` }, { value: (object as Record<string, unknown>)[key] }, { text: ',' })
      items.push({ text: '}' })
    }
    onPath.add(object)
    items.push({ leave: object })
    pushReversed(items)
  }
  return out.join('')
}

export function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/** The full serialization of one workspace actor: its state and its log position. */
export function workspaceStateText(runtime: Runtime, workspaceId: string): string {
  const actor = runtime.actors.get(workspaceId)
  if (actor === undefined) return `<no actor ${workspaceId}>`
  return stableSerialize({ state: actor.state, lastAppliedSeq: actor.lastAppliedSeq })
}

export function workspaceFingerprint(runtime: Runtime, workspaceId: string): string {
  return digest(workspaceStateText(runtime, workspaceId))
}

/** Workspaces, keys, hashes and tags, plus which actors exist. */
export function systemStateText(runtime: Runtime): string {
  return stableSerialize({ system: runtime.system, actors: [...runtime.actors.keys()], systemSeq: runtime.systemSeq })
}

export function systemFingerprint(runtime: Runtime): string {
  return digest(systemStateText(runtime))
}

/** Where two serializations first differ, with some context either side, for failure messages. */
export function firstDifference(before: string, after: string, context = 120): string {
  let index = 0
  while (index < before.length && index < after.length && before[index] === after[index]) index++
  if (index === before.length && index === after.length) return 'identical'
  const from = Math.max(0, index - context)
  return `at character ${index}: before …${before.slice(from, index + context)}… after …${after.slice(from, index + context)}…`
}
