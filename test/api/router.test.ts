/** The route lookup (src/api/router.ts): the same answers as the plain split-and-compare it replaced, on the real route tables. */
import fc from 'fast-check'
import t from 'tap'
import { adminRoutes } from '../../src/api/admin-routes.ts'
import { v2Routes } from '../../src/api/route-table.ts'
import { Router } from '../../src/api/router.ts'

type Route = { readonly method: string; readonly pattern: string }

/** The reference: split the path, drop one trailing empty segment, try the routes of the same method and length in table order. */
function referenceMatch(routes: readonly Route[], method: string, path: string): { route: Route; params: Record<string, string> } | null {
  const segments = path.split('/').slice(1)
  if (segments.length > 1 && segments[segments.length - 1] === '') segments.pop()
  for (const route of routes) {
    const pattern = route.pattern.split('/').slice(1)
    if (route.method !== method || pattern.length !== segments.length) continue
    const params: Record<string, string> = {}
    let matched = true
    for (let i = 0; i < pattern.length && matched; i++) {
      if (!pattern[i].startsWith(':')) matched = pattern[i] === segments[i]
      else if (segments[i] === '') matched = false
      else {
        try {
          params[pattern[i].slice(1)] = decodeURIComponent(segments[i])
        } catch {
          matched = false
        }
      }
    }
    if (matched) return { route, params }
  }
  return null
}

const tables: [string, readonly Route[]][] = [['v2', v2Routes], ['admin', adminRoutes]]

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
