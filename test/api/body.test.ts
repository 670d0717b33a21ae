/**
 * Which parser reads a request body (src/api/body.ts): JSON unless the route parses its own format and the body
 * is in it (a text/csv body that is not a JSON object, a Content-Type or ?format= the route reads, or every body
 * for a route that parses every one); the route's parser gets the bytes, the Content-Type and the query (whose
 * encoding the query stage checked before: test/api/query.test.ts).
 */
import t from 'tap'
import { isJsonBody, parseBody } from '../../src/api/body.ts'
import type { LifecycleRoute, RouteBody } from '../../src/api/route.ts'

interface Call { readonly text: string; readonly contentType: string; readonly query: string }

function routeWith(body: Partial<RouteBody<unknown>> | undefined): { route: LifecycleRoute; calls: Call[] } {
  const calls: Call[] = []
  const parse = (bytes: Buffer, contentType: string, query: URLSearchParams) => {
    calls.push({ text: bytes.toString('utf8'), contentType, query: query.toString() })
    return { ok: true as const, value: { parsedBy: 'route' } }
  }
  const route = { body: body === undefined ? undefined : { validate: () => ({ ok: true }), parse, ...body } } as unknown as LifecycleRoute
  return { route, calls }
}

const csv = Buffer.from('date,amount\n2026-03-10,100\n')
const json = Buffer.from('{"lines":[]}')

t.test('a route without a parser of its own: always JSON', async (t) => {
  const { route } = routeWith({ parse: undefined })
  t.ok(isJsonBody(route, 'text/csv', csv, ''))
  t.same(parseBody(route, json, 'text/csv', ''), { ok: true, value: { lines: [] } })
  t.match(parseBody(route, csv, 'text/csv', ''), { ok: false, code: 'json_invalid' }, 'CSV sent to a JSON route is json_invalid')
  t.ok(isJsonBody(routeWith(undefined).route, 'text/csv', csv, ''), 'no body declared at all')
})

t.test('a route that reads CSV: text/csv that is not a JSON object goes to its parser with bytes, type and query', async (t) => {
  const { route, calls } = routeWith({})
  t.notOk(isJsonBody(route, 'text/csv; charset=utf-8', csv, ''))
  t.same(parseBody(route, csv, 'text/csv; charset=utf-8', 'dry=1'), { ok: true, value: { parsedBy: 'route' } })
  t.same(calls, [{ text: csv.toString('utf8'), contentType: 'text/csv; charset=utf-8', query: 'dry=1' }])
  t.same(parseBody(route, json, 'text/csv', ''), { ok: true, value: { lines: [] } }, 'a JSON object sent as text/csv is JSON')
  t.same(parseBody(route, json, 'application/json', ''), { ok: true, value: { lines: [] } })
  t.equal(calls.length, 1, 'the route\'s parser ran only for the CSV')
})

t.test('reads: the Content-Types or ?format= the route names go to its parser, whatever else is declared', async (t) => {
  const reads = (contentType: string, query: URLSearchParams) => contentType === 'application/xml' || query.get('format') === 'mt940'
  const { route, calls } = routeWith({ reads })
  t.notOk(isJsonBody(route, 'application/xml', Buffer.from('<Document/>'), ''))
  t.notOk(isJsonBody(route, 'application/octet-stream', Buffer.from(':20:X'), 'format=mt940'))
  t.ok(isJsonBody(route, 'application/json', json, 'format=camt053'))
  parseBody(route, Buffer.from(':20:X'), 'application/octet-stream', 'format=mt940')
  t.same(calls.map((call) => call.query), ['format=mt940'])
})

t.test('parsesEvery: every body goes to the route\'s parser, even a JSON object', async (t) => {
  const { route, calls } = routeWith({ parsesEvery: true })
  t.notOk(isJsonBody(route, 'application/json', json, ''))
  t.same(parseBody(route, json, 'application/json', ''), { ok: true, value: { parsedBy: 'route' } })
  t.equal(calls.length, 1)
})
