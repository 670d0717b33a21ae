/**
 * Route declarations (src/api/route.ts): v2Route and adminRoute only type a route (its body as its schema's type, its
 * query as its parameters' values) and give back the very object they were handed, with nothing added, dropped or
 * wrapped: the route tables, the lifecycle and the OpenAPI document read what was declared.
 */
import t from 'tap'
import { Type } from 'typebox'
import { limitQuery, queryValuesOf } from '../../src/api/query.ts'
import { adminRoute, v2Route, type AdminContext, type RouteContext } from '../../src/api/route.ts'
import { validator } from '../../src/api/schemas/validate.ts'
import { contextOf } from '../support/route-context.ts'

const nameBody = validator(Type.Object({ name: Type.String() }))

t.test('v2Route: the very route, its handler seeing the typed body and query values', async (t) => {
  const declared = {
    method: 'POST' as const, pattern: '/v2/things/:id', scope: 'entries:write' as const, summary: 'Make a thing',
    body: { validate: nameBody }, query: [limitQuery], errors: ['not_found'] as const,
    handle: ({ body, query, params }: RouteContext<{ name: string }, { readonly limit: number }>) => ({ read: { name: 'entry.get' as const, params: { entry: `${params.id}:${body.name}:${query.limit}` } } }),
  }
  const route = v2Route(declared)
  t.equal(route, declared, 'not a copy')
  t.same(Object.keys(route).sort(), Object.keys(declared).sort(), 'nothing added')
  const values = queryValuesOf(route.query ?? [], 'limit=7')
  if (!values.ok) throw new Error('the limit was refused')
  t.same(route.handle(contextOf({ params: { id: 't1' }, body: { name: 'n' }, query: values.value })), { read: { name: 'entry.get', params: { entry: 't1:n:7' } } })
})

t.test('adminRoute: the very route; its handler sees params, query, body and the clock', async (t) => {
  const seen: AdminContext[] = []
  const declared = {
    method: 'GET', pattern: '/admin/things', summary: 'List things', errors: [], response: { status: 200, description: 'Things' },
    handle: (context: AdminContext) => {
      seen.push(context)
      return { readsSystem: { name: 'workspace.list' as const, params: { limit: 1, cursor: null } } }
    },
  }
  const route = adminRoute(declared)
  t.equal(route, declared)
  const context = { params: {}, query: { limit: 1 }, body: undefined, atMs: 5 }
  t.same(route.handle(context), { readsSystem: { name: 'workspace.list', params: { limit: 1, cursor: null } } })
  t.equal(seen[0], context, 'handed on as it is')
})
