/**
 * @module Test support for the request fuzzer: JSON text with raw number tokens (-0, 1e308, 2^53 + 1
 * spelled as the client wrote them), deep nesting without recursion, body mutations, and percent-encoding
 * that never throws (lone surrogates included).
 */

/** A JSON token written verbatim: `1e400`, `-0`, `9007199254740993`, or a prebuilt deep value. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a value built from plain data and RawJson tokens. Non-finite numbers become null, as JSON.stringify does. */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text
  if (value === undefined) return 'null'
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`
  const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined)
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${jsonText(item)}`).join(',')}}`
}

/** `depth` nested arrays or objects, as text: JSON.parse takes it, naive recursive walkers do not. */
export function deepJson(depth: number, kind: 'array' | 'object'): RawJson {
  return kind === 'array' ? new RawJson('['.repeat(depth) + ']'.repeat(depth)) : new RawJson('{"a":'.repeat(depth) + '0' + '}'.repeat(depth))
}

/** A copy in which RawJson tokens are shared (they are immutable). */
export function cloneValue<T>(value: T): T {
  if (value === null || typeof value !== 'object' || value instanceof RawJson) return value
  if (Array.isArray(value)) return value.map(cloneValue) as T
  const copy: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) defineMember(copy, key, cloneValue(item))
  return copy as T
}

export type JsonPath = readonly (string | number)[]

/** Every path into containers of the value, the root ([]) first. */
export function containerPaths(value: unknown, path: JsonPath = [], out: JsonPath[] = []): JsonPath[] {
  if (value === null || typeof value !== 'object' || value instanceof RawJson) return out
  out.push(path)
  if (Array.isArray(value)) value.forEach((item, index) => containerPaths(item, [...path, index], out))
  else for (const [key, item] of Object.entries(value as Record<string, unknown>)) containerPaths(item, [...path, key], out)
  return out
}

/** Every path to a member (not the root). */
export function memberPaths(value: unknown, path: JsonPath = [], out: JsonPath[] = []): JsonPath[] {
  if (value === null || typeof value !== 'object' || value instanceof RawJson) return out
  if (Array.isArray(value)) value.forEach((item, index) => { out.push([...path, index]); memberPaths(item, [...path, index], out) })
  else for (const [key, item] of Object.entries(value as Record<string, unknown>)) { out.push([...path, key]); memberPaths(item, [...path, key], out) }
  return out
}

function containerAt(root: unknown, path: JsonPath): any {
  let node: any = root
  for (const step of path) node = node[step]
  return node
}

/** An own, enumerable member even for `__proto__`, so it reaches the JSON text as a key. */
function defineMember(object: object, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
}

export interface Mutation {
  readonly kind: 'set' | 'delete' | 'add'
  /** Which path, modulo the number of candidates. */
  readonly pick: number
  readonly key: string
  readonly value: unknown
}

/** Applies mutations in order to a copy: replace a member, delete it, or add a member to a container. */
export function mutate(template: unknown, mutations: readonly Mutation[]): unknown {
  let root = cloneValue(template)
  for (const mutation of mutations) {
    if (mutation.kind === 'add') {
      const containers = containerPaths(root)
      if (containers.length === 0) continue
      const container = containerAt(root, containers[mutation.pick % containers.length])
      // A copy: generators hand out shared constants ([], {}), which must never end up inside themselves.
      const value = cloneValue(mutation.value)
      if (Array.isArray(container)) container.push(value)
      else defineMember(container, mutation.key, value)
      continue
    }
    const members = memberPaths(root)
    if (members.length === 0) {
      if (mutation.kind === 'set') root = cloneValue(mutation.value)
      continue
    }
    const path = members[mutation.pick % members.length]
    const parent = containerAt(root, path.slice(0, -1))
    const last = path[path.length - 1]
    if (mutation.kind === 'set') {
      const value = cloneValue(mutation.value)
      if (Array.isArray(parent)) parent[last as number] = value
      else defineMember(parent, String(last), value)
    } else if (Array.isArray(parent)) parent.splice(last as number, 1)
    else delete parent[last]
  }
  return root
}

/** Percent-encodes every byte outside the URL unreserved set; lone surrogates go out as U+FFFD, never throw. */
export function percentEncode(text: string): string {
  let out = ''
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte)
    out += /[A-Za-z0-9_.~-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}
