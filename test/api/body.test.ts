/**
 * Which parser reads a request body (src/api/body.ts): JSON unless the route parses its own format and the body
 * is in it (a text/csv body that is not a JSON object), or a statement file (a Content-Type or ?format= naming a
 * statement format, or every body for a route that takes only files); the route's parser gets the bytes, the Content-Type and the query (whose
 * encoding the query stage checked before: test/api/query.test.ts).
 */
import t from 'tap'
import { isJsonBody, parseBody } from '../../src/api/body.ts'
import type { LifecycleRoute, RouteBody } from '../../src/api/route.ts'
import { StatementFile } from '../../src/api/statement-file.ts'

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

t.test('statementFile named: a Content-Type or ?format= naming a statement format is a statement file, left unread for the parse stage', async (t) => {
  const { route, calls } = routeWith({ statementFile: 'named' })
  t.notOk(isJsonBody(route, 'application/xml', Buffer.from('<Document/>'), ''), 'camt.053 by its media type')
  t.notOk(isJsonBody(route, 'application/octet-stream', Buffer.from(':20:X'), 'format=mt940'), 'MT940 by ?format=')
  t.ok(isJsonBody(route, 'application/json', json, ''), 'JSON stays JSON')
  const parsed = parseBody(route, Buffer.from(':20:X'), 'application/octet-stream', 'format=mt940')
  t.ok(parsed.ok && parsed.value instanceof StatementFile, 'the file itself, unread')
  t.same(calls, [], 'the route\'s own parser never ran')
})

t.test('statementFile every: every body is a statement file, even a JSON object', async (t) => {
  const { route, calls } = routeWith({ statementFile: 'every' })
  t.notOk(isJsonBody(route, 'application/json', json, ''))
  const parsed = parseBody(route, json, 'application/json', '')
  t.ok(parsed.ok && parsed.value instanceof StatementFile)
  t.equal(calls.length, 0)
})
