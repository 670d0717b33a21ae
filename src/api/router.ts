/** @module Route table lookup: method and path segments to a route and its decoded parameters. */

export interface Matched<R> {
  readonly route: R
  readonly params: Readonly<Record<string, string>>
}

interface Compiled<R> {
  readonly method: string
  readonly segments: readonly string[]
  readonly route: R
}

/** Patterns look like `/v2/accounts/:id/balance`; a `:name` segment matches one non-empty segment. */
export class Router<R extends { readonly method: string; readonly pattern: string }> {
  /** The routes of one method and segment count, in table order: a lookup tries only those. */
  readonly #byShape = new Map<string, Compiled<R>[]>()

  constructor(routes: readonly R[]) {
    for (const route of routes) {
      const compiled = { method: route.method, segments: route.pattern.split('/').slice(1), route }
      const shape = `${compiled.method} ${compiled.segments.length}`
      const group = this.#byShape.get(shape)
      if (group === undefined) this.#byShape.set(shape, [compiled])
      else group.push(compiled)
    }
  }

  match(method: string, path: string): Matched<R> | null {
    const segments = path.split('/').slice(1)
    if (segments.length > 0 && segments[segments.length - 1] === '' && segments.length > 1) segments.pop()
    for (const compiled of this.#byShape.get(`${method} ${segments.length}`) ?? []) {
      const params = matchSegments(compiled.segments, segments)
      if (params !== null) return { route: compiled.route, params }
    }
    return null
  }
}

function matchSegments(pattern: readonly string[], segments: readonly string[]): Record<string, string> | null {
  const params: Record<string, string> = {}
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i].startsWith(':')) {
      if (segments[i] === '') return null
      try {
        params[pattern[i].slice(1)] = decodeURIComponent(segments[i])
      } catch {
        return null
      }
    } else if (pattern[i] !== segments[i]) {
      return null
    }
  }
  return params
}
