/**
 * The OpenAPI document (src/edge/openapi.ts): valid OpenAPI 3.1 by an independent validator, served
 * without auth or rate limit, covering every route of the route tables and every error code, and
 * describing what the server really answers (bodies checked against the published schemas).
 */
import { Validator } from '@seriousme/openapi-schema-validator'
import fs from 'node:fs'
import path from 'node:path'
import t, { type Test } from 'tap'
import { Compile } from 'typebox/compile'
import { adminRoutes } from '../../src/api/admin-routes.ts'
import { v2Routes } from '../../src/api/route-table.ts'
import { plainRoutes } from '../../src/edge/server.ts'
import type { LabeledRoute } from '../../src/api/route.ts'
import { errorCatalogue } from '../../src/errors.ts'
import { raiseLimits } from '../support/api.ts'
import { call, startTestService, type Reply } from '../support/service.ts'
import { openSocket } from '../support/ws.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key, adminToken } = service
await raiseLimits(service, 'default')

const served = await call(baseUrl, 'GET', '/v2/openapi.json')
const doc = served.body
const methods = ['get', 'post', 'patch', 'delete', 'put', 'head', 'options', 'trace']

const docPath = (pattern: string) => pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
const operationOf = (route: LabeledRoute) => doc.paths?.[docPath(route.pattern)]?.[route.method.toLowerCase()]
const allRoutes: LabeledRoute[] = [...plainRoutes, ...v2Routes, ...adminRoutes]
const label = (route: LabeledRoute) => `${route.method} ${route.pattern}`

/** Every operation of the document: [path, method, operation]. */
function operations(): [string, string, any][] {
  return Object.entries(doc.paths as Record<string, any>).flatMap(([path, item]) => methods.filter((method) => item[method] !== undefined).map((method) => [path, method, item[method]] as [string, string, any]))
}

t.test('served at GET /v2/openapi.json with no key and no rate budget', async (t) => {
  t.equal(served.status, 200)
  t.match(served.headers.get('content-type') ?? '', /application\/json/)
  t.equal(served.headers.get('x-ratelimit-limit'), null, 'no rate-limit headers: no bucket is drawn on')
  t.ok(served.headers.get('request-id'), 'Request-Id on this answer too')
  t.equal(doc.openapi, '3.1.0')
  // Far past any bucket's capacity with a 1/min workspace: it never meets a budget.
  const replies = await Promise.all(Array.from({ length: 50 }, () => call(baseUrl, 'GET', '/v2/openapi.json', { key })))
  t.ok(replies.every((reply) => reply.status === 200 && reply.text === served.text), '50 requests in a burst: all 200 and the same document')
  t.equal((await call(baseUrl, 'POST', '/v2/openapi.json', { key, body: {} })).status, 405, 'only GET (and HEAD)')
})

t.test('a valid OpenAPI 3.1 document by @seriousme/openapi-schema-validator', async (t) => {
  const validator = new Validator()
  const result = await validator.validate(structuredClone(doc))
  t.equal(result.valid, true, `valid: ${JSON.stringify(result.errors)?.slice(0, 2000)}`)
  t.equal(validator.version, '3.1')
  // A control: the validator does reject a broken document, so the pass above means something.
  const broken = structuredClone(doc)
  broken.paths['/v2/accounts'].get.parameters.push({ name: 'x', in: 'body' })
  t.equal((await new Validator().validate(broken)).valid, false, 'a parameter "in: body" is refused')
})

t.test('every route of the route tables is in the document, and nothing else', async (t) => {
  for (const route of allRoutes) t.ok(operationOf(route), `${label(route)} is documented`)
  // GET /v2/stream is the WebSocket upgrade: in no route table, described beside them.
  const known = new Set([...allRoutes.map((route) => `${route.method.toLowerCase()} ${docPath(route.pattern)}`), 'get /v2/stream'])
  for (const [path, method] of operations()) t.ok(known.has(`${method} ${path}`), `${method} ${path} is a route of a table`)
  const ids = operations().map(([, , operation]) => operation.operationId)
  t.equal(new Set(ids).size, ids.length, 'operationIds are unique')
})

t.test('every route of the tables is one the server answers (no "No route" 404)', async (t) => {
  const fill = (pattern: string) => pattern.replace(/:([A-Za-z0-9_]+)/g, 'probe')
  for (const route of allRoutes) {
    const credential = route.pattern.startsWith('/admin/') ? adminToken : key
    const reply = await call(baseUrl, route.method, fill(route.pattern), { key: credential, body: route.method === 'GET' || route.method === 'DELETE' ? undefined : {} })
    t.notMatch(reply.body?.error?.message ?? '', /^No route/, `${label(route)}: answered by its handler (${reply.status})`)
  }
  for (const [method, path, status] of [['PUT', '/v2/accounts', 405], ['DELETE', '/v2/entries/x', 405], ['GET', '/v2/nothing', 404], ['PUT', '/admin/keys', 405]] as const) {
    const reply = await call(baseUrl, method, path, { key: path.startsWith('/admin/') ? adminToken : key })
    t.equal(reply.status, status, `${method} ${path} is answered by no route (${status})`)
    t.notOk(doc.paths[path]?.[method.toLowerCase()], `${method} ${path} is not documented`)
  }
})

t.test('every path says what another method answers: 405 with the Allow the server sends', async (t) => {
  t.match(doc.components.responses.MethodNotAllowed.headers, { Allow: { $ref: '#/components/headers/Allow' } })
  for (const [path, item] of Object.entries(doc.paths as Record<string, any>)) {
    const served = methods.filter((method) => item[method] !== undefined).map((method) => method.toUpperCase())
    const { allow, response } = item['x-other-methods']
    t.same(response, { $ref: '#/components/responses/MethodNotAllowed' }, `${path}: x-other-methods`)
    for (const method of served) t.ok(allow.split(', ').includes(method), `${path}: Allow names ${method}`)
    if (served.includes('GET')) t.ok(allow.split(', ').includes('HEAD'), `${path}: and HEAD`)
    const concrete = path.replace(/\{[^}]+\}/g, 'probe')
    const reply = await call(baseUrl, 'PUT', concrete, { key: path.startsWith('/admin/') ? adminToken : key, body: {} })
    t.equal(reply.status, 405, `PUT ${path}: 405`)
    t.equal(reply.headers.get('allow'), allow, `PUT ${path}: Allow ${allow}`)
  }
})

t.test('every code of the error catalogue appears, with its status and an example', async (t) => {
  const documented = new Map<string, Set<string>>()
  // 405 belongs to no operation: it is the answer to the methods a path item does not list.
  for (const [status, response] of Object.entries({ 405: doc.components.responses.MethodNotAllowed })) {
    for (const code of Object.keys(response.content['application/json'].examples)) documented.set(code, new Set([status]))
  }
  for (const [, , operation] of operations()) {
    for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
      for (const code of Object.keys(response.content?.['application/json']?.examples ?? {})) {
        if (!documented.has(code)) documented.set(code, new Set())
        documented.get(code)!.add(status)
      }
    }
  }
  for (const [code, { status }] of Object.entries(errorCatalogue)) {
    t.same([...(documented.get(code) ?? [])], [String(status)], `${code} is documented, under ${status} only`)
  }
  t.same(doc.components.schemas.Error.properties.error.properties.code.anyOf.map((branch: any) => branch.const).sort(), Object.keys(errorCatalogue).sort(), 'the Error schema lists every code')
})

t.test('parameters, headers, bodies and security of each operation', async (t) => {
  for (const route of v2Routes) {
    const operation = operationOf(route)
    const params = operation.parameters
    const named = (name: string, where: string) => params.some((param: any) => param.name === name && param.in === where)
    for (const name of route.pattern.split('/').filter((segment) => segment.startsWith(':'))) t.ok(named(name.slice(1), 'path'), `${label(route)}: path param ${name}`)
    const queryNames = params.filter((param: any) => param.in === 'query').map((param: any) => param.name)
    t.same(queryNames, (route.query ?? []).map((param) => param.name), `${label(route)}: the query params the route declares`)
    const idempotent = params.some((param: any) => param.$ref === '#/components/parameters/IdempotencyKey')
    t.equal(idempotent, route.method !== 'GET', `${label(route)}: Idempotency-Key on every method but GET`)
    t.same(operation.security, [{ apiKey: route.scope === null ? [] : [route.scope] }], `${label(route)}: bearer with scope ${route.scope ?? '(none)'}`)
    t.equal(operation.requestBody !== undefined, route.body !== undefined, `${label(route)}: a request body exactly when the route reads one`)
    for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
      t.ok(response.headers['Request-Id'], `${label(route)} ${status}: Request-Id`)
      if (status !== '401') t.ok(response.headers['X-RateLimit-Remaining'] && response.headers['X-RateLimit-Limit'], `${label(route)} ${status}: X-RateLimit-*`)
    }
    t.ok(operation.responses['429'].headers['Retry-After'], `${label(route)}: 429 with Retry-After`)
    if (route.method !== 'GET') t.ok(operation.responses[String(route.response?.status ?? 200)].headers.Replayed, `${label(route)}: Replayed on success`)
  }
  const lines = operationOf(v2Routes.find((route) => route.pattern === '/v2/reconciliations/:id/lines' && route.method === 'POST')!)
  t.same(Object.keys(lines.requestBody.content).sort(), ['application/json', 'application/x-bai2', 'application/x-mt940', 'application/xml', 'text/csv', 'text/xml'], 'the lines import takes JSON, CSV or a statement file')
  const statements = operationOf(v2Routes.find((route) => route.pattern === '/v2/statements')!)
  t.same(Object.keys(statements.requestBody.content).sort(), ['application/octet-stream', 'application/x-bai2', 'application/x-mt940', 'application/xml', 'text/plain', 'text/xml'], 'the statement import takes the three file formats, no JSON')
  t.same(operationOf({ method: 'GET', pattern: '/healthz' }).security, [], '/healthz: no auth')
  t.same(operationOf({ method: 'GET', pattern: '/v2/openapi.json' }).security, [], '/v2/openapi.json: no auth')
  t.same(operationOf({ method: 'GET', pattern: '/metrics' }).security, [{}, { metricsToken: [] }], '/metrics: optional bearer')
  for (const route of adminRoutes) t.same(operationOf(route).security, [{ adminToken: [] }], `${label(route)}: the admin token`)
})

t.test('each declared query parameter is parsed by its handler: a bad value is 400 at /<name>', async (t) => {
  const badValue = (schema: any): string => {
    if (schema.enum !== undefined) return 'no-such-value'
    if (schema.format === 'date-time') return 'yesterday'
    if (schema.type === 'integer') return String(schema.minimum - 1)
    return ''
  }
  for (const route of v2Routes) {
    for (const param of route.query ?? []) {
      const path = route.pattern.replace(/:([A-Za-z0-9_]+)/g, 'probe')
      const reply = await call(baseUrl, route.method, `${path}?${param.name}=${encodeURIComponent(badValue(param.schema))}`, { key })
      t.equal(reply.status, 400, `${label(route)} ?${param.name}: 400`)
      t.same(reply.body?.error?.details?.map((detail: any) => detail.path), [`/${param.name}`], `${label(route)} ?${param.name}: detail at /${param.name}`)
    }
  }
})

// --- What the server answers matches what the document says ---------------------------------------

const resolved = await (async () => {
  const validator = new Validator()
  await validator.validate(structuredClone(doc))
  return validator.resolveRefs() as any
})()
const compiled = new Map<unknown, ReturnType<typeof Compile>>()
const check = (schema: unknown, value: unknown) => {
  if (!compiled.has(schema)) compiled.set(schema, Compile(schema as any))
  return compiled.get(schema)!.Check(value)
}

/** JSON pointers of properties the value has and the schema does not declare (unless it allows more). */
function undeclared(schema: any, value: any, at = ''): string[] {
  if (schema.anyOf !== undefined) {
    const branch = schema.anyOf.find((candidate: any) => check(candidate, value))
    return branch === undefined ? [] : undeclared(branch, value, at)
  }
  if (Array.isArray(value) && schema.items !== undefined) return value.flatMap((item, index) => undeclared(schema.items, item, `${at}/${index}`))
  if (value === null || typeof value !== 'object' || schema.properties === undefined) return []
  return Object.keys(value).flatMap((name) => {
    if (name in schema.properties) return undeclared(schema.properties[name], value[name], `${at}/${name}`)
    // additionalProperties true, or a schema for them (a headers map of strings): declared.
    return schema.additionalProperties === true || typeof schema.additionalProperties === 'object' ? [] : [`${at}/${name}`]
  })
}

function assertDocumented(t: Test, route: LabeledRoute, reply: Reply): void {
  const where = `${label(route)} → ${reply.status}`
  const response = resolved.paths[docPath(route.pattern)][route.method.toLowerCase()].responses[String(reply.status)]
  if (!t.ok(response, `${where}: this status is documented`)) return
  if (reply.status === 204) return void t.equal(reply.text, '', `${where}: no body`)
  // A route may answer several media types (the exports): the one the reply names, else the first.
  const contents = Object.entries(response.content as Record<string, any>)
  const [mediaType, content] = contents.find(([type]) => (reply.headers.get('content-type') ?? '').startsWith(type.split(';')[0])) ?? contents[0]
  t.match(reply.headers.get('content-type') ?? '', mediaType.split(';')[0], `${where}: content-type ${mediaType}`)
  if (!mediaType.includes('json')) return void t.ok(check(content.schema, reply.text), `${where}: text body`)
  t.ok(check(content.schema, reply.body), `${where}: the body matches the documented schema`) || t.comment(reply.text.slice(0, 500))
  t.same(undeclared(content.schema, reply.body), [], `${where}: no undocumented property`)
  if (reply.status >= 400) t.ok(Object.keys(content.examples ?? {}).includes(reply.body?.error?.code), `${where}: ${reply.body?.error?.code} is listed for this route`)
}

t.test('request bodies are the schemas that validate requests (the same objects, as JSON)', async (t) => {
  for (const route of v2Routes) {
    // A route whose parser reads every body (a statement file) publishes no JSON schema.
    if (route.body === undefined || route.body.statementFile === 'every') continue
    const published = resolved.paths[docPath(route.pattern)][route.method.toLowerCase()].requestBody.content['application/json'].schema
    t.same(published, JSON.parse(JSON.stringify(route.body.validate.schema)), `${label(route)}: the validator's schema`)
  }
  for (const route of adminRoutes) {
    if (route.body === undefined) continue
    const published = resolved.paths[docPath(route.pattern)][route.method.toLowerCase()].requestBody.content['application/json'].schema
    t.same(published, JSON.parse(JSON.stringify(route.body.validate.schema)), `${label(route)}: the validator's schema`)
  }
})

t.test('a tour of every route: success and error answers are as documented', async (t) => {
  const covered = new Set<string>()
  const route = (method: string, pattern: string) => allRoutes.find((candidate) => candidate.method === method && candidate.pattern === pattern)!
  const visit = async (method: string, pattern: string, path: string, options: Parameters<typeof call>[3] = {}): Promise<Reply> => {
    const reply = await call(baseUrl, method, path, { key, ...options })
    assertDocumented(t, route(method, pattern), reply)
    if (reply.status < 300) covered.add(`${method} ${pattern}`)
    return reply
  }
  await visit('GET', '/healthz', '/healthz', { key: undefined })
  await visit('GET', '/v2/openapi.json', '/v2/openapi.json', { key: undefined })
  await visit('GET', '/metrics', '/metrics', { key: undefined })
  const bank = (await visit('POST', '/v2/accounts', '/v2/accounts', { body: { name: 'assets:bank', tags: ['eur'] } })).body
  await visit('POST', '/v2/accounts', '/v2/accounts', { body: { name: 'income:sales' } })
  await visit('POST', '/v2/accounts', '/v2/accounts', { body: { name: 'income:sales' } })
  await visit('GET', '/v2/accounts', '/v2/accounts?limit=1')
  await visit('GET', '/v2/accounts/:id', `/v2/accounts/${bank.id}`)
  await visit('GET', '/v2/accounts/:id', '/v2/accounts/acc_nope')
  await visit('PATCH', '/v2/accounts/:id', `/v2/accounts/${bank.id}`, { body: { tags: ['eur', 'main'] } })
  const lines = (amount: number) => [{ account: 'assets:bank', amount }, { account: 'income:sales', amount: -amount }]
  const first = (await visit('POST', '/v2/entries', '/v2/entries', { body: { lines: lines(5000), effective_at: '2025-10-03T10:00:00Z', description: 'Invoice 1001', metadata: { invoice: '1001' } } })).body
  const second = (await visit('POST', '/v2/entries', '/v2/entries', { body: { lines: lines(3500), effective_at: '2025-10-17T15:30:00Z' }, headers: { 'idempotency-key': 'tour-2' } })).body
  const replay = await visit('POST', '/v2/entries', '/v2/entries', { body: { lines: lines(3500), effective_at: '2025-10-17T15:30:00Z' }, headers: { 'idempotency-key': 'tour-2' } })
  t.equal(replay.headers.get('replayed'), 'true', 'a replay')
  await visit('POST', '/v2/entries', '/v2/entries', { body: { lines: [{ account: 'assets:bank', amount: 1 }, { account: 'income:sales', amount: -2 }] } })
  await visit('POST', '/v2/entries', '/v2/entries', { raw: '{"lines":', headers: { 'content-type': 'application/json' } })
  await visit('POST', '/v2/entries', '/v2/entries', { key: 'tu_nobody', body: { lines: lines(1) } })
  await visit('GET', '/v2/entries/:id', `/v2/entries/${first.id}`)
  await visit('GET', '/v2/entries', `/v2/entries?account=assets%3Abank&from=2025-10-01T00:00:00Z&to=2025-11-01T00:00:00Z`)
  await visit('GET', '/v2/entries', '/v2/entries?account=assets%3Anope')
  await visit('GET', '/v2/accounts/:id/balance', `/v2/accounts/${bank.id}/balance?at=2025-10-31T23:59:59.999Z`)
  const window = (await visit('POST', '/v2/reconciliations', '/v2/reconciliations', {
    body: { label: 'October', accounts: ['assets:bank'], window: { from: '2025-10-01', to: '2025-10-31' }, claimed_movement: 8495, statement_ref: 'stmt.pdf' },
  })).body
  await visit('POST', '/v2/reconciliations', '/v2/reconciliations', { body: { label: 'Overlap', accounts: ['assets:bank'], window: { from: '2025-10-15', to: '2025-10-20' }, claimed_movement: 0 } })
  const recon = `/v2/reconciliations/${window.id}`
  const csv = 'date,amount,reference,description\n2025-10-03,5000,TRX-1,"Invoice 1001, ACME"\n2025-10-17,3500,TRX-2,\n2025-10-31,-5,FEE-10,Account fee\n'
  await visit('POST', '/v2/reconciliations/:id/lines', `${recon}/lines`, { raw: csv, headers: { 'content-type': 'text/csv' } })
  await visit('POST', '/v2/reconciliations/:id/lines', `${recon}/lines`, { body: { lines: [{ amount: 1, date: '2025-11-01' }] } })
  await visit('GET', '/v2/reconciliations/:id/lines', `${recon}/lines?status=unmatched`)
  const matched = (await visit('POST', '/v2/reconciliations/:id/matches', `${recon}/matches`, { body: { statement_lines: ['l1'], entries: [first.id], strategy: 'amount_and_date' } })).body
  await visit('POST', '/v2/reconciliations/:id/matches', `${recon}/matches`, { body: { statement_lines: ['l2'], entries: [first.id], strategy: 'amount_and_date' } })
  await visit('DELETE', '/v2/reconciliations/:id/matches/:match_id', `${recon}/matches/${matched.id}`)
  await visit('DELETE', '/v2/reconciliations/:id/matches/:match_id', `${recon}/matches/${matched.id}`)
  await visit('POST', '/v2/reconciliations/:id/matches', `${recon}/matches`, { body: { statement_lines: ['l1'], entries: [first.id], strategy: 'amount_and_date' } })
  await visit('POST', '/v2/reconciliations/:id/matches', `${recon}/matches`, { body: { statement_lines: ['l2'], entries: [second.id], strategy: 'manual' } })
  await visit('POST', '/v2/reconciliations/:id/matches', `${recon}/matches`, { body: { statement_lines: ['l3'], strategy: 'write_off', reason: 'Bank fee' } })
  await visit('GET', '/v2/reconciliations/:id/matches', `${recon}/matches`)
  await visit('PATCH', '/v2/reconciliations/:id', recon, { body: { state: 'closed' } })
  await visit('PATCH', '/v2/reconciliations/:id', recon, { body: { state: 'abandoned', reason: 'too late' } })
  await visit('GET', '/v2/reconciliations/:id', recon)
  await visit('GET', '/v2/reconciliations', '/v2/reconciliations?state=closed&account=assets%3Abank')
  await visit('GET', '/v2/reconciliations/:id/history', `${recon}/history`)
  const pack = await visit('GET', '/v2/reconciliations/:id/export', `${recon}/export?format=json`)
  t.equal(pack.body?.window?.id, window.id, 'the JSON audit pack, checked against its object schema')
  await visit('GET', '/v2/reconciliations/:id/export', `${recon}/export?format=csv`)
  await visit('GET', '/v2/workspace', '/v2/workspace')
  const hook = (await visit('POST', '/v2/webhooks', '/v2/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['entry.posted', 'match.created'] } })).body
  await visit('POST', '/v2/webhooks', '/v2/webhooks', { body: { url: 'http://127.0.0.1:9/hook', events: ['entry.deleted'] } })
  await visit('GET', '/v2/webhooks', '/v2/webhooks?limit=1')
  await visit('GET', '/v2/webhooks/:id', `/v2/webhooks/${hook.id}`)
  await visit('POST', '/v2/entries', '/v2/entries', { body: { lines: lines(1), effective_at: '2025-10-04T10:00:00Z' } })
  await visit('GET', '/v2/webhooks/:id/deliveries', `/v2/webhooks/${hook.id}/deliveries`)
  await visit('GET', '/v2/webhooks/:id/deliveries', '/v2/webhooks/wh_nope/deliveries')
  await visit('DELETE', '/v2/webhooks/:id', `/v2/webhooks/${hook.id}`)
  await visit('DELETE', '/v2/webhooks/:id', `/v2/webhooks/${hook.id}`)
  const statementFile = fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/examples/november.camt053.xml'))
  await visit('PATCH', '/v2/accounts/:id', `/v2/accounts/${bank.id}`, { body: { external_id: 'US-EXAMPLE-0001' } })
  await visit('PATCH', '/v2/accounts/:id', `/v2/accounts/${bank.id}`, { body: { currency: 'EUR' } })
  const imported = (await visit('POST', '/v2/statements', '/v2/statements', { raw: statementFile, headers: { 'content-type': 'application/xml' } })).body
  await visit('POST', '/v2/statements', '/v2/statements', { raw: statementFile, headers: { 'content-type': 'application/xml' } })
  await visit('POST', '/v2/statements', '/v2/statements', { raw: '<Document/>', headers: { 'content-type': 'application/xml' } })
  for (const contentType of ['text/xml', 'text/plain', 'application/octet-stream']) {
    const again = await visit('POST', '/v2/statements', '/v2/statements', { raw: statementFile, headers: { 'content-type': contentType } })
    t.equal(again.headers.get('replayed'), 'true', `${contentType}: read as the same statement (imported before)`)
  }
  await visit('GET', '/v2/reconciliations/:id/lines', `/v2/reconciliations/${imported.data[0].id}/lines`)
  const admin = { key: adminToken }
  await visit('POST', '/admin/workspaces', '/admin/workspaces', { ...admin, body: { id: 'tour', timezone: 'Europe/Berlin' } })
  await visit('POST', '/admin/workspaces', '/admin/workspaces', { ...admin, body: { id: 'tour', timezone: 'Europe/Berlin' } })
  await visit('PATCH', '/admin/workspaces/:id', '/admin/workspaces/tour', { ...admin, body: { limits: { reads_per_minute: 60 } } })
  const created = (await visit('POST', '/admin/keys', '/admin/keys', { ...admin, body: { workspace: 'tour', scopes: ['accounts:read'], name: 'reader' } })).body
  await visit('DELETE', '/admin/keys/:id', `/admin/keys/${created.id}`, admin)
  await visit('DELETE', '/admin/keys/:id', `/admin/keys/${created.id}`, admin)
  await visit('GET', '/admin/workspaces', '/admin/workspaces?limit=2', admin)
  await visit('GET', '/admin/workspaces/:id', '/admin/workspaces/tour', admin)
  await visit('GET', '/admin/workspaces/:id', '/admin/workspaces/nope', admin)
  await visit('GET', '/admin/keys', '/admin/keys?workspace=tour', admin)
  await visit('GET', '/admin/keys', '/admin/keys?workspace=nope', admin)
  for (const candidate of allRoutes) {
    if (!covered.has(label(candidate))) t.comment(`not toured (a route added after this test was written?): ${label(candidate)}`)
  }
  t.ok(covered.size >= 25, `${covered.size} routes toured with a success`)
})

t.test('the audit pack: JSON as an object, CSV and PDF as text', async (t) => {
  const content = resolved.paths['/v2/reconciliations/{id}/export'].get.responses['200'].content
  t.same(Object.keys(content).sort(), ['application/json', 'application/pdf', 'text/csv'])
  t.equal(content['application/json'].schema.type, 'object', 'the JSON pack is an object')
  for (const name of ['format', 'version', 'seal_version', 'exported_at', 'window', 'time_zone', 'accounts', 'matched', 'lines', 'matches', 'history']) {
    t.ok(content['application/json'].schema.properties?.[name], `with ${name}`)
    t.ok(content['application/json'].schema.required?.includes(name), `${name} required`)
  }
  t.equal(content['text/csv'].schema.type, 'string')
  t.equal(content['application/pdf'].schema.type, 'string')
  t.equal(content['application/pdf'].schema.contentMediaType, 'application/pdf', 'the PDF as binary content')
})

t.test('statement uploads list every media type the server reads', async (t) => {
  const content = doc.paths['/v2/statements'].post.requestBody.content
  t.same(Object.keys(content).sort(), ['application/octet-stream', 'application/x-bai2', 'application/x-mt940', 'application/xml', 'text/plain', 'text/xml'])
  t.notOk(content['application/json'], 'no JSON: a statement file is never JSON')
})

t.test('GET /v2/stream: the upgrade (101), its auth and its messages as schemas', async (t) => {
  const operation = resolved.paths['/v2/stream']?.get
  if (!t.ok(operation, 'GET /v2/stream is described')) return
  t.ok(operation.responses['101'], '101 Switching Protocols')
  t.ok(operation.responses['401'], '401 for a wrong key in the upgrade')
  t.ok(operation.responses['400'], '400 without the upgrade headers')
  t.same(operation.security, [{ apiKey: [] }, {}], 'the key in the upgrade header, or none there and an auth message')
  const headers = operation.parameters.filter((param: any) => param.in === 'header' && param.required === true).map((param: any) => param.name).sort()
  t.same(headers, ['Connection', 'Sec-WebSocket-Key', 'Sec-WebSocket-Version', 'Upgrade'], 'the upgrade headers')
  // The validator may leave a $ref inside an extension unresolved: the component it names, resolved.
  const schemaOf = (value: any) => (value.$ref === undefined ? value : resolved.components.schemas[value.$ref.split('/').at(-1)])
  const clientMessages = schemaOf(operation['x-websocket'].clientMessages)
  const serverMessages = schemaOf(operation['x-websocket'].serverMessages)
  const { closeCodes } = operation['x-websocket']
  t.same(doc.paths['/v2/stream'].get['x-websocket'].clientMessages, { $ref: '#/components/schemas/StreamClientMessage' })
  t.match(closeCodes, { 4401: String, 1001: String })
  t.ok(doc.components.schemas.StreamClientMessage && doc.components.schemas.StreamServerMessage, 'the messages are components')

  // Real traffic: every message sent and received is one of the published shapes.
  const socket = await openSocket(baseUrl)
  const sent = [
    { type: 'auth', key },
    { type: 'subscribe', id: 's1', accounts: ['assets:bank'] },
    { type: 'request', id: 'r1', method: 'POST', path: '/v2/entries', headers: { 'idempotency-key': 'stream-doc-1' }, body: { lines: [{ account: 'assets:bank', amount: 7 }, { account: 'income:sales', amount: -7 }] } },
    { type: 'request', id: 'r2', method: 'GET', path: '/v2/workspace' },
    { type: 'unsubscribe', id: 's2', accounts: ['assets:bank'] },
    { type: 'subscribe', id: 's3', reconciliations: ['rec_nope'] },
  ]
  for (const message of sent) {
    t.ok(check(clientMessages, message), `client message ${message.type} matches StreamClientMessage`)
    socket.send(message)
    if (message.type === 'auth') await socket.next((received) => received.type === 'authenticated')
    if (message.type === 'request') await socket.next((received) => received.type === 'response' && received.id === message.id)
    if (message.type === 'subscribe' || message.type === 'unsubscribe') await socket.next((received) => received.id === message.id)
  }
  socket.send('{"type":"nonsense"}')
  await socket.next((received) => received.type === 'error' && received.error.code === 'request_invalid')
  await socket.next((received) => received.type === 'balance').catch(() => undefined)
  const types = new Set(socket.messages.map((message) => message.type))
  for (const type of ['authenticated', 'subscribed', 'balance', 'response', 'unsubscribed', 'error']) t.ok(types.has(type), `received a ${type} message`)
  for (const message of socket.messages) {
    t.ok(check(serverMessages, message), `server message ${message.type} matches StreamServerMessage`) || t.comment(JSON.stringify(message).slice(0, 300))
    t.same(undeclared(serverMessages, message), [], `${message.type}: no undocumented property`)
  }
  t.notOk(check(clientMessages, { type: 'request', id: 'x'.repeat(65), method: 'GET', path: '/v2/accounts' }), 'an id over 64 characters is no request message')
  socket.socket.close()
})
