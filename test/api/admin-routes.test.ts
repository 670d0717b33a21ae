/** The admin route table (src/api/admin-routes.ts): what each handler builds from its validated body, and the helpers it exports. */
import t from 'tap'
import { adminRoutes, createKeyCommand, newKeySecret, randomText } from '../../src/api/admin-routes.ts'
import type { AdminRoute } from '../../src/api/route.ts'
import { hashSecret } from '../../src/api/auth.ts'
import { currencyDefault, limitsDefault } from '../../src/ledger/system.ts'

const atMs = Date.UTC(2026, 10, 27, 12)

function routeOf(method: string, pattern: string): AdminRoute {
  const route = adminRoutes.find((candidate) => candidate.method === method && candidate.pattern === pattern)
  if (route === undefined) throw new Error(`no route ${method} ${pattern}`)
  return route
}

/** The handler's answer after the route's own validator accepted the body (as the lifecycle calls it). */
function handled(route: AdminRoute, parts: { params?: Record<string, string>, query?: Record<string, unknown>, body?: unknown } = {}): Record<string, unknown> {
  let body = parts.body
  if (route.body !== undefined) {
    const checked = route.body.validate(body)
    if (!checked.ok) throw new Error(`refused: ${JSON.stringify(checked)}`)
    body = checked.value
  }
  return route.handle({ params: parts.params ?? {}, query: parts.query ?? {}, body, atMs }) as Record<string, unknown>
}

function refused(route: AdminRoute, body: unknown): boolean {
  if (route.body === undefined) throw new Error('no body')
  return !route.body.validate(body).ok
}

t.test('the table: every route under /admin, none under /v2, each with a summary and its answer\'s status', async (t) => {
  t.equal(adminRoutes.length, 7)
  const seen = new Set<string>()
  for (const route of adminRoutes) {
    t.match(route.pattern, /^\/admin\//)
    t.equal(route.scope, undefined, 'the admin token holds every right: no scope')
    t.ok(route.summary.length > 0)
    const key = `${route.method} ${route.pattern}`
    t.notOk(seen.has(key), `${key} once`)
    seen.add(key)
  }
  t.equal(routeOf('POST', '/admin/workspaces').response.status, 201)
  t.equal(routeOf('POST', '/admin/keys').response.status, 201)
  t.equal(routeOf('DELETE', '/admin/keys/:id').response.status, 204)
})

t.test('workspace create: defaults for currency and limits, the time zone canonical, a fresh tag and seal key', async (t) => {
  const route = routeOf('POST', '/admin/workspaces')
  const first = handled(route, { body: { id: 'ws_a', timezone: 'europe/berlin' } })
  t.equal(first.type, 'workspace.create')
  t.equal(first.at_ms, atMs)
  t.equal(first.id, 'ws_a')
  t.equal(first.time_zone, 'Europe/Berlin', 'spelt as the zone database does')
  t.equal(first.currency, currencyDefault)
  t.same(first.limits, limitsDefault)
  t.match(first.tag, /^[0-9a-z]{7}$/, '36 bits of base 36: 7 characters, ids of 20 characters')
  t.type(first.seal_private_key, 'string')
  t.type(first.seal_public_key, 'string')
  const second = handled(route, { body: { id: 'ws_b', timezone: 'UTC', currency: 'EUR', limits: { writes_per_minute: 1, reads_per_minute: 100_000_000 } } })
  t.equal(second.currency, 'EUR')
  t.same(second.limits, { writes_per_minute: 1, reads_per_minute: 100_000_000 }, 'the bounds of a limit pass')
  t.not(second.tag, first.tag, 'each workspace its own tag')
  t.not(second.seal_private_key, first.seal_private_key, 'each workspace its own seal key')
  t.equal(handled(route, { body: { id: 'ws_c', timezone: 'Not/AZone' } }).time_zone, 'Not/AZone', 'an unknown zone is passed on as written (the ledger refuses it)')
})

t.test('workspace create: the body schema refuses bad ids, limits out of bounds and unknown fields', async (t) => {
  const route = routeOf('POST', '/admin/workspaces')
  t.notOk(refused(route, { id: 'a'.repeat(64), timezone: 'UTC' }), '64 characters pass')
  t.ok(refused(route, { id: 'a'.repeat(65), timezone: 'UTC' }), '65 do not')
  t.ok(refused(route, { id: '', timezone: 'UTC' }))
  t.ok(refused(route, { id: 'ws a', timezone: 'UTC' }))
  t.ok(refused(route, { id: 'ws', timezone: '' }))
  t.ok(refused(route, { id: 'ws', timezone: 'UTC', currency: 'eur' }))
  t.ok(refused(route, { id: 'ws', timezone: 'UTC', limits: { writes_per_minute: 0, reads_per_minute: 1 } }))
  t.ok(refused(route, { id: 'ws', timezone: 'UTC', limits: { writes_per_minute: 1 } }), 'both limits or none')
  t.ok(refused(route, { id: 'ws', timezone: 'UTC', limits: { writes_per_minute: 100_000_001, reads_per_minute: 1 } }))
  t.ok(refused(route, { id: 'ws', timezone: 'UTC', tag: 'x' }))
})

t.test('workspace update: only the fields named, copied field by field', async (t) => {
  const route = routeOf('PATCH', '/admin/workspaces/:id')
  const none = handled(route, { params: { id: 'ws_a' }, body: {} })
  t.same(none, { type: 'workspace.update', at_ms: atMs, id: 'ws_a', limits: undefined, currency: undefined, settings: undefined, time_zone: undefined })
  const one = handled(route, { params: { id: 'ws_a' }, body: { limits: { reads_per_minute: 5 }, timezone: 'america/new_york' } })
  t.same(one.limits, { reads_per_minute: 5 }, 'the limit not named stays absent, not undefined')
  t.notOk(Object.hasOwn(one.limits as object, 'writes_per_minute'))
  t.equal(one.time_zone, 'America/New_York')
  const both = handled(route, { params: { id: 'ws_a' }, body: { limits: { reads_per_minute: 5, writes_per_minute: 6 }, currency: 'JPY' } })
  t.same(both.limits, { writes_per_minute: 6, reads_per_minute: 5 })
  t.equal(both.currency, 'JPY')
  t.same(handled(route, { params: { id: 'ws_a' }, body: { limits: {} } }).limits, {}, 'an empty limits object changes nothing')
})

t.test('workspace update: settings named field by field; an empty settings object names none', async (t) => {
  const route = routeOf('PATCH', '/admin/workspaces/:id')
  const settingsOf = (settings: unknown) => handled(route, { params: { id: 'ws_a' }, body: { settings } }).settings
  t.equal(settingsOf({}), undefined)
  t.same(settingsOf({ approvals: {} }), { approvals: {} }, 'an empty approvals object is kept (it names the group)')
  t.same(settingsOf({ lock_closed_periods: false }), { lock_closed_periods: false }, 'false is a value, not absence')
  t.same(settingsOf({ approvals: { write_off_over: null } }), { approvals: { write_off_over: null } }, 'null clears the bound')
  t.same(settingsOf({ approvals: { write_off_over: 0, close_with_residual: true } }), { approvals: { close_with_residual: true, write_off_over: 0 } })
  t.ok(refused(route, { settings: { approvals: { write_off_over: -1 } } }))
  t.ok(refused(route, { settings: { unknown: true } }))
})

t.test('reads: system reads with the query\'s values', async (t) => {
  t.same(handled(routeOf('GET', '/admin/workspaces'), { query: { limit: 10, cursor: null } }), { readsSystem: { name: 'workspace.list', params: { limit: 10, cursor: null } } })
  t.same(handled(routeOf('GET', '/admin/workspaces/:id'), { params: { id: 'ws_a' } }), { readsSystem: { name: 'workspace.get', params: { workspace: 'ws_a' } } })
  t.same(handled(routeOf('GET', '/admin/keys'), { query: { workspace: 'ws_a', limit: 1, cursor: 'c' } }), { readsSystem: { name: 'key.list', params: { workspace: 'ws_a', limit: 1, cursor: 'c' } } })
  t.same(routeOf('GET', '/admin/keys').query?.map((param) => param.name), ['workspace', 'limit', 'cursor'])
})

t.test('key create: the secret is answered once and only its hash goes into the command', async (t) => {
  const route = routeOf('POST', '/admin/keys')
  const built = handled(route, { body: { workspace: 'ws_a', scopes: ['entries:read', 'entries:read'] } }) as { command: Record<string, unknown>, extra: { secret: string } }
  t.match(built.extra.secret, /^tu_[A-Za-z0-9_-]{43}$/)
  t.equal(built.command.secret_hash, hashSecret(built.extra.secret))
  t.notOk(JSON.stringify(built.command).includes(built.extra.secret), 'the command (and the log) never holds the secret')
  t.same(built.command.scopes, ['entries:read'], 'a repeated scope once')
  t.equal(built.command.accounts, null, 'absent accounts: every account')
  t.equal(built.command.name, null)
  t.equal(built.command.workspace, 'ws_a')
  t.ok(refused(route, { workspace: 'ws_a', scopes: ['root'] }), 'an unknown scope is refused')
  t.ok(refused(route, { workspace: '', scopes: [] }))
})

t.test('key revoke: the key named by the path', async (t) => {
  t.same(handled(routeOf('DELETE', '/admin/keys/:id'), { params: { id: 'key_x' } }), { type: 'key.revoke', at_ms: atMs, id: 'key_x' })
})

t.test('createKeyCommand: a new id each time, scopes deduplicated in order, the secret hashed', async (t) => {
  const a = createKeyCommand(atMs, 'ws', ['recon:write', 'entries:read', 'recon:write'], ['Cash'], 'ops', 'secret')
  t.same(a.scopes, ['recon:write', 'entries:read'])
  t.same(a.accounts, ['Cash'])
  t.equal(a.name, 'ops')
  t.equal(a.secret_hash, hashSecret('secret'))
  t.match(a.id, /^key_[0-9a-z]{14}$/, '72 bits of base 36: 14 characters, 18 in all (the PDF history\'s key column)')
  t.not(createKeyCommand(atMs, 'ws', [], null, null, 'secret').id, a.id)
  t.same(createKeyCommand(atMs, 'ws', [], null, null, 's').scopes, [])
})

t.test('randomText: enough base-36 characters for the bits asked, and different each time', async (t) => {
  for (const [bits, length] of [[0, 0], [1, 1], [5, 1], [6, 2], [36, 7], [40, 8], [72, 14], [96, 19], [256, 50]] as const) {
    const text = randomText(bits)
    t.equal(text.length, length, `${bits} bits: ${length} characters`)
    t.match(text, /^[0-9a-z]*$/)
  }
  const seen = new Set(Array.from({ length: 50 }, () => randomText(96)))
  t.equal(seen.size, 50)
  t.not(newKeySecret(), newKeySecret())
})
