/**
 * The route lookup (src/api/router.ts): the same answers as a plain split-and-compare that prefers, segment by
 * segment, a literal over a parameter, on the real route tables in their order and reversed.
 */
import fc from 'fast-check'
import t from 'tap'
import { adminRoutes } from '../../src/api/admin-routes.ts'
import { v2Routes } from '../../src/api/route-table.ts'
import { Router } from '../../src/api/router.ts'

type Route = { readonly method: string; readonly pattern: string }

/** The params of a route whose pattern matches the path's segments, or null. */
function paramsOf(route: Route, segments: readonly string[]): Record<string, string> | null {
  const pattern = route.pattern.split('/').slice(1)
  if (pattern.length !== segments.length) return null
  const params: Record<string, string> = {}
  for (let i = 0; i < pattern.length; i++) {
    if (!pattern[i].startsWith(':')) {
      if (pattern[i] !== segments[i]) return null
    } else if (segments[i] === '') return null
    else {
      try {
        params[pattern[i].slice(1)] = decodeURIComponent(segments[i])
      } catch {
        return null
      }
    }
  }
  return params
}

/** Which of two patterns is more specific: at the first segment where one has a literal and the other a parameter, the literal's. */
function moreSpecific(a: Route, b: Route): boolean {
  const [left, right] = [a.pattern.split('/'), b.pattern.split('/')]
  for (let i = 0; i < left.length; i++) {
    const [leftParam, rightParam] = [left[i].startsWith(':'), right[i].startsWith(':')]
    if (leftParam !== rightParam) return rightParam
  }
  return false
}

/**
 * The reference: split the path, drop one trailing empty segment, and of the routes of the same method and
 * length that match, the most specific (the first in table order among equals).
 */
function referenceMatch(routes: readonly Route[], method: string, path: string): { route: Route; params: Record<string, string> } | null {
  const segments = path.split('/').slice(1)
  if (segments.length > 1 && segments[segments.length - 1] === '') segments.pop()
  let best: { route: Route; params: Record<string, string> } | null = null
  for (const route of routes) {
    if (route.method !== method) continue
    const params = paramsOf(route, segments)
    if (params !== null && (best === null || moreSpecific(route, best.route))) best = { route, params }
  }
  return best
}

const tables: [string, readonly Route[]][] = [['v2', v2Routes], ['admin', adminRoutes], ['v2 reversed', [...v2Routes].reverse()], ['admin reversed', [...adminRoutes].reverse()]]

/** A segment as clients send them: ids, names with encoded characters, broken escapes, empty ones. */
const segment = fc.oneof(
  fc.constantFrom('acc_bznap9l000000001', 'assets%3Abank', 'a%2Fb', '%E2%82%AC', '%', '%zz', '%E2%82', '', 'balance', 'export', 'lines', 'matches', 'v2', 'admin'),
  fc.stringMatching(/^[a-z0-9_%:.-]{1,12}$/),
)

for (const [name, routes] of tables) {
  const router = new Router(routes)
  const methods = [...new Set(routes.map((route) => route.method)), 'PUT', 'HEAD']
  /** A path from a pattern of the table, each `:name` (and sometimes a literal) replaced, sometimes with a trailing slash. */
  const fromPattern = fc.record({
    route: fc.constantFrom(...routes),
    replacements: fc.array(segment, { minLength: 8, maxLength: 8 }),
    replaceLiteral: fc.integer({ min: -1, max: 7 }),
    trailingSlash: fc.boolean(),
  }).map(({ route, replacements, replaceLiteral, trailingSlash }) => {
    const parts = route.pattern.split('/').map((part, i) => (part.startsWith(':') || i === replaceLiteral ? replacements[i] : part))
    return parts.join('/') + (trailingSlash ? '/' : '')
  })
  const anyPath = fc.oneof(fromPattern, fc.array(segment, { maxLength: 6 }).map((parts) => `/${parts.join('/')}`), fc.constantFrom('/', '//', '', 'v2/accounts'))

  t.test(`${name}: the same route and params as the reference`, async (t) => {
    fc.assert(fc.property(fc.constantFrom(...methods), anyPath, (method, path) => {
      const ours = router.match(method, path)
      const reference = referenceMatch(routes, method, path)
      if (reference === null) return ours === null
      return ours !== null && ours.route === reference.route && JSON.stringify(ours.params) === JSON.stringify(reference.params)
    }), { numRuns: 20_000 })
    for (const route of routes) {
      const path = route.pattern.replace(/:([a-z_]+)/g, 'x%20y')
      t.equal(router.match(route.method, path)?.route, referenceMatch(routes, route.method, path)?.route, `${route.method} ${route.pattern}`)
    }
  })
}

t.test('params are decoded; a segment that does not decode matches no route', async (t) => {
  const router = new Router(v2Routes)
  t.same(router.match('GET', '/v2/accounts/assets%3Abank/balance')?.params, { id: 'assets:bank' })
  t.same(router.match('GET', '/v2/accounts/acc_1/balance/')?.params, { id: 'acc_1' }, 'a trailing slash is ignored')
  t.equal(router.match('GET', '/v2/accounts/%E2%82/balance'), null)
  t.equal(router.match('GET', '/v2/accounts//balance'), null, 'an empty segment is no id')
  t.equal(router.match('PUT', '/v2/accounts'), null, 'an unknown method')
})

/** Routes whose order in a table would decide, if the table's order decided: a literal and a parameter at the same segment. */
const overlapping: readonly Route[] = [
  { method: 'GET', pattern: '/v2/entries/:id' },
  { method: 'GET', pattern: '/v2/entries/export' },
  { method: 'POST', pattern: '/v2/entries/:id' },
  { method: 'POST', pattern: '/v2/entries/batch' },
  { method: 'GET', pattern: '/v2/things/:id/lines' },
  { method: 'GET', pattern: '/v2/things/export/:format' },
  { method: 'GET', pattern: '/v2/things/export/pdf' },
]

t.test('a literal segment beats a parameter, whatever the order of the table', async (t) => {
  for (const [order, routes] of [['as listed', overlapping], ['reversed', [...overlapping].reverse()]] as const) {
    const router = new Router(routes)
    const patternOf = (method: string, path: string) => router.match(method, path)?.route.pattern
    t.equal(patternOf('GET', '/v2/entries/export'), '/v2/entries/export', `${order}: GET export`)
    t.equal(patternOf('GET', '/v2/entries/ent_1'), '/v2/entries/:id', `${order}: GET an entry`)
    t.equal(patternOf('POST', '/v2/entries/batch'), '/v2/entries/batch', `${order}: POST batch`)
    t.same(router.match('POST', '/v2/entries/ent_1')?.params, { id: 'ent_1' }, `${order}: POST an entry`)
    t.equal(patternOf('GET', '/v2/things/export/pdf'), '/v2/things/export/pdf', `${order}: the literal at the last segment`)
    t.same(router.match('GET', '/v2/things/export/csv')?.params, { format: 'csv' }, `${order}: the parameter where the literal does not match`)
    t.same(router.match('GET', '/v2/things/export/lines')?.params, { format: 'lines' }, `${order}: the literal first segment wins over an earlier parameter`)
    t.same(router.match('GET', '/v2/things/x/lines')?.params, { id: 'x' }, `${order}: a literal that does not match falls back to the parameter`)
  }
})
