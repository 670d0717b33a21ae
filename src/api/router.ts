/** @module Route table lookup: method and path segments to a route and its decoded parameters. */

export interface Matched<R> {
  readonly route: R
  readonly params: Readonly<Record<string, string>>
}

interface Compiled<R> {
  /** Per segment: the literal it must equal, or null for a `:name` segment. */
  readonly literals: readonly (string | null)[]
  /** The `:name` segments: their positions and names. */
  readonly paramIndexes: readonly number[]
  readonly paramNames: readonly string[]
  readonly route: R
}

/**
 * Patterns look like `/v2/accounts/:id/balance`; a `:name` segment matches one non-empty segment.
 * Where several routes match a path, segment by segment a literal beats a parameter (`/v2/entries/export`
 * beats `/v2/entries/:id`, and `/v2/a/b/:x` beats `/v2/a/:y/c`), whatever the table's order: a route added
 * anywhere in a table cannot shadow a more specific one. Every request goes through match, so it allocates
 * only for the route that matches (its params): the literal segments of a candidate are compared first, a
 * segment is URI-decoded only when it has a `%`.
 */
export class Router<R extends { readonly method: string; readonly pattern: string }> {
  /**
   * Per method, the routes of each segment count (the index), most specific first (table order among equals):
   * a lookup tries only those, and the first that matches is the most specific that does.
   */
  readonly #byShape = new Map<string, Compiled<R>[][]>()

  constructor(routes: readonly R[]) {
    for (const route of routes) {
      const segments = route.pattern.split('/').slice(1)
      const paramIndexes: number[] = []
      const paramNames: string[] = []
      const literals = segments.map((segment, index) => {
        if (!segment.startsWith(':')) return segment
        paramIndexes.push(index)
        paramNames.push(segment.slice(1))
        return null
      })
      let byCount = this.#byShape.get(route.method)
      if (byCount === undefined) this.#byShape.set(route.method, (byCount = []))
      ;(byCount[segments.length] ??= []).push({ literals, paramIndexes, paramNames, route })
    }
    // Array.prototype.sort is stable: routes of the same shape keep their table order.
    for (const byCount of this.#byShape.values()) for (const group of byCount) group?.sort(bySpecificity)
  }

  match(method: string, path: string): Matched<R> | null {
    const segments = path.split('/')
    const group = this.#byShape.get(method)?.[segmentCount(segments)]
    if (group === undefined) return null
    for (let i = 0; i < group.length; i++) {
      const params = matchSegments(group[i], segments)
      if (params !== null) return { route: group[i].route, params }
    }
    return null
  }

  /** The methods some route serves on this path (a 405's Allow), in table order; empty for an unknown path. Only asked on a miss. */
  methodsOf(path: string): string[] {
    const segments = path.split('/')
    const count = segmentCount(segments)
    const methods: string[] = []
    for (const [method, byCount] of this.#byShape) {
      if (byCount[count]?.some((compiled) => matchSegments(compiled, segments) !== null) === true) methods.push(method)
    }
    return methods
  }
}

/** A 405's Allow: the methods a path is served with, HEAD beside GET where the transport answers HEAD, sorted. */
export function allowOf(methods: Iterable<string>, headServed: boolean): string[] {
  const allowed = new Set(methods)
  if (headServed && allowed.has('GET')) allowed.add('HEAD')
  return [...allowed].sort()
}

/**
 * Negative when `a` is more specific: at the first segment where one has a literal and the other a
 * parameter, the one with the literal. Sorted by this, the first route of a group that matches a path is,
 * of those that match it, the one that prefers a literal at every segment it can.
 */
function bySpecificity(a: Compiled<unknown>, b: Compiled<unknown>): number {
  for (let i = 0; i < a.literals.length; i++) {
    const aParam = a.literals[i] === null
    if (aParam !== (b.literals[i] === null)) return aParam ? 1 : -1
  }
  return 0
}

/** segments[0] is what precedes the first '/' (empty for a path); a trailing '/' is ignored. */
function segmentCount(segments: readonly string[]): number {
  const count = segments.length - 1
  return count > 1 && segments[count] === '' ? count - 1 : count
}

/** The params of a route whose segments match (`segments` from `path.split('/')`, offset by one), or null. */
function matchSegments(compiled: Compiled<unknown>, segments: readonly string[]): Record<string, string> | null {
  const { literals, paramIndexes, paramNames } = compiled
  for (let i = 0; i < literals.length; i++) {
    const literal = literals[i]
    if (literal === null ? segments[i + 1] === '' : literal !== segments[i + 1]) return null
  }
  const params: Record<string, string> = {}
  for (let p = 0; p < paramIndexes.length; p++) {
    const segment = segments[paramIndexes[p] + 1]
    if (segment.includes('%')) {
      try {
        params[paramNames[p]] = decodeURIComponent(segment)
      } catch {
        return null
      }
    } else {
      params[paramNames[p]] = segment
    }
  }
  return params
}
