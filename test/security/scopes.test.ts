/**
 * The security matrix (docs/API.md, Conventions, 2): every /v2 route × every scope; 401 for every kind of missing or
 * bad key on every route; another workspace's ids answer 404 not_found on every route (never 403, never
 * data); a key restricted to `assets:*` sees and names nothing else; secrets never reach disk or logs in
 * clear; the admin token compare is constant-time; every input limit holds at its edge. A rejected request
 * changes nothing: the in-memory state is compared byte for byte (test/support/state-fingerprint.ts).
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { adminCreateKey, adminCreateWorkspace, assertError, createAccount, envelopeProblem, postEntryOk, raiseLimits, scopesAll, type Scope } from '../support/api.ts'
import { killHard, startProcess } from '../support/process.ts'
import { addLinesOk, matchOk, openWindowOk, patchWindow, windowBody } from '../support/recon.ts'
import { keyRecords, workspaceState } from '../support/probes.ts'
import { call, startTestService, type Reply } from '../support/service.ts'
import { firstDifference } from '../support/state-fingerprint.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl } = service
await raiseLimits(service, 'default')
const full = service.apiKey
t.setTimeout(240_000)

let sequence = 0
/** A name nothing else uses, so windows and accounts of one check never meet another's. */
const fresh = (prefix: string) => `${prefix}-${++sequence}`

/** A past month no other window of this file uses (windows overlap only on shared accounts anyway). */
function period(offset: number): { from: string; to: string } {
  const year = 2020 + Math.floor(offset / 12)
  const month = String((offset % 12) + 1).padStart(2, '0')
  return { from: `${year}-${month}-01`, to: `${year}-${month}-28` }
}

/** Runs a request that must be rejected and asserts the workspace state did not move. */
async function rejected(t: Tap, workspace: string, label: string, send: () => Promise<Reply>, status: number, code: string): Promise<Reply> {
  const before = await workspaceState(service.service, workspace)
  const reply = await send()
  assertError(t, reply, status, code, label)
  const after = await workspaceState(service.service, workspace)
  t.ok(after === before, `${label}: state unchanged${after === before ? '' : ` (${firstDifference(before, after)})`}`)
  return reply
}
type Tap = Test

// ---------------------------------------------------------------------------------------------
// The fixture: workspace `default` with assets and income accounts, entries on each, windows over each,
// matches; workspace `other` with the same shape and names of its own.

interface Fixture {
  readonly workspace: string
  readonly key: string
  readonly accounts: Record<string, any>
  readonly entryAssets: any
  readonly entryMixed: any
  readonly windowAssets: any
  readonly windowIncome: any
  readonly windowMixed: any
  readonly matchAssets: any
  readonly matchIncome: any
}

async function buildFixture(workspace: string, key: string, unique: string): Promise<Fixture> {
  const accounts: Record<string, any> = {}
  for (const name of ['assets:bank', 'assets:cash', 'income:sales', 'expenses:fees', `assets:${unique}`]) accounts[name] = await createAccount(baseUrl, key, name, [`tag-${unique}`])
  const entryAssets = await postEntryOk(baseUrl, key, [{ account: 'assets:bank', amount: 1111 }, { account: 'assets:cash', amount: -1111 }], { effective_at: '2019-01-10T12:00:00Z', description: `assets only ${unique}` })
  const entryMixed = await postEntryOk(baseUrl, key, [{ account: 'assets:bank', amount: 2222 }, { account: 'income:sales', amount: -2222 }], { effective_at: '2019-01-11T12:00:00Z', description: `mixed ${unique}` })
  const entryIncome = await postEntryOk(baseUrl, key, [{ account: 'income:sales', amount: 3333 }, { account: 'expenses:fees', amount: -3333 }], { effective_at: '2019-01-12T12:00:00Z', description: `income ${unique}` })
  const windowAssets = await openWindowOk(baseUrl, key, { label: `assets ${unique}`, accounts: ['assets:bank'], from: '2019-01-01', to: '2019-01-31', claimed_movement: 3333 })
  await addLinesOk(baseUrl, key, windowAssets.id, [{ amount: 1111, date: '2019-01-10' }, { amount: 2222, date: '2019-01-11' }])
  const matchAssets = await matchOk(baseUrl, key, windowAssets.id, { statement_lines: ['l1'], entries: [entryAssets.id], strategy: 'manual' })
  const windowIncome = await openWindowOk(baseUrl, key, { label: `income ${unique}`, accounts: ['income:sales'], from: '2019-01-01', to: '2019-01-31', claimed_movement: 1111 })
  await addLinesOk(baseUrl, key, windowIncome.id, [{ amount: 3333, date: '2019-01-12' }])
  const matchIncome = await matchOk(baseUrl, key, windowIncome.id, { statement_lines: ['l1'], entries: [entryIncome.id], strategy: 'manual' })
  const windowMixed = await openWindowOk(baseUrl, key, { label: `mixed ${unique}`, accounts: ['assets:cash', 'expenses:fees'], from: '2019-02-01', to: '2019-02-28', claimed_movement: 0 })
  return { workspace, key, accounts, entryAssets, entryMixed, windowAssets, windowIncome, windowMixed, matchAssets, matchIncome }
}

const mine = await buildFixture('default', full, 'mine-only')
const createdOther = await adminCreateWorkspace(service, 'other', 'Europe/Berlin')
if (createdOther.status !== 201) throw new Error(`creating workspace other: ${createdOther.status} ${createdOther.text}`)
const otherKey = (await adminCreateKey(service, 'other', scopesAll)).secret
const theirs = await buildFixture('other', otherKey, 'theirs-only')

// ---------------------------------------------------------------------------------------------
// The routes: method, pattern, scope, and a request that passes every check but the scope.

interface RouteCase {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  readonly pattern: string
  readonly scope: Scope
  /** A request that must succeed with a key holding exactly this route's scope. */
  readonly request: () => Promise<{ path: string; body?: unknown; status: number }>
}

/** Fresh objects for write routes, made with the full key, so the scoped key's request succeeds. */
async function freshWindowWithMatch(): Promise<{ window: any; entry: any; match: any; account: string }> {
  const account = `assets:${fresh('mw')}`
  await createAccount(baseUrl, full, account)
  const entry = await postEntryOk(baseUrl, full, [{ account, amount: 50 }, { account: 'income:sales', amount: -50 }], { effective_at: '2018-03-05T12:00:00Z' })
  const window = await openWindowOk(baseUrl, full, { accounts: [account], from: '2018-03-01', to: '2018-03-31', claimed_movement: 50 })
  await addLinesOk(baseUrl, full, window.id, [{ amount: 50, date: '2018-03-05' }])
  const match = await matchOk(baseUrl, full, window.id, { statement_lines: ['l1'], entries: [entry.id], strategy: 'manual' })
  return { window, entry, match, account }
}

const routes: RouteCase[] = [
  { method: 'GET', pattern: '/v2/accounts', scope: 'accounts:read', request: async () => ({ path: '/v2/accounts', status: 200 }) },
  { method: 'POST', pattern: '/v2/accounts', scope: 'accounts:write', request: async () => ({ path: '/v2/accounts', body: { name: `assets:${fresh('scoped')}` }, status: 201 }) },
  { method: 'GET', pattern: '/v2/accounts/:id', scope: 'accounts:read', request: async () => ({ path: `/v2/accounts/${mine.accounts['assets:bank'].id}`, status: 200 }) },
  { method: 'PATCH', pattern: '/v2/accounts/:id', scope: 'accounts:write', request: async () => ({ path: `/v2/accounts/${mine.accounts['assets:bank'].id}`, body: { tags: ['patched'] }, status: 200 }) },
  { method: 'GET', pattern: '/v2/accounts/:id/balance', scope: 'accounts:read', request: async () => ({ path: `/v2/accounts/${mine.accounts['assets:bank'].id}/balance`, status: 200 }) },
  { method: 'GET', pattern: '/v2/entries', scope: 'entries:read', request: async () => ({ path: '/v2/entries', status: 200 }) },
  { method: 'POST', pattern: '/v2/entries', scope: 'entries:write', request: async () => ({ path: '/v2/entries', body: { lines: [{ account: 'assets:bank', amount: 1 }, { account: 'assets:cash', amount: -1 }], effective_at: '2017-01-01T00:00:00Z' }, status: 201 }) },
  { method: 'GET', pattern: '/v2/entries/:id', scope: 'entries:read', request: async () => ({ path: `/v2/entries/${mine.entryAssets.id}`, status: 200 }) },
  { method: 'GET', pattern: '/v2/reconciliations', scope: 'recon:read', request: async () => ({ path: '/v2/reconciliations', status: 200 }) },
  {
    method: 'POST', pattern: '/v2/reconciliations', scope: 'recon:write', request: async () => {
      const account = `assets:${fresh('open')}`
      await createAccount(baseUrl, full, account)
      return { path: '/v2/reconciliations', body: windowBody({ accounts: [account], from: '2018-01-01', to: '2018-01-31', claimed_movement: 0 }), status: 201 }
    },
  },
  { method: 'GET', pattern: '/v2/reconciliations/:id', scope: 'recon:read', request: async () => ({ path: `/v2/reconciliations/${mine.windowAssets.id}`, status: 200 }) },
  {
    method: 'PATCH', pattern: '/v2/reconciliations/:id', scope: 'recon:write', request: async () => {
      const account = `assets:${fresh('abandon')}`
      await createAccount(baseUrl, full, account)
      const window = await openWindowOk(baseUrl, full, { accounts: [account], from: '2018-02-01', to: '2018-02-28', claimed_movement: 0 })
      return { path: `/v2/reconciliations/${window.id}`, body: { state: 'abandoned', reason: 'scope test' }, status: 200 }
    },
  },
  { method: 'POST', pattern: '/v2/reconciliations/:id/lines', scope: 'recon:write', request: async () => ({ path: `/v2/reconciliations/${mine.windowMixed.id}/lines`, body: { lines: [{ amount: 1, date: '2019-02-02' }] }, status: 201 }) },
  { method: 'GET', pattern: '/v2/reconciliations/:id/lines', scope: 'recon:read', request: async () => ({ path: `/v2/reconciliations/${mine.windowAssets.id}/lines`, status: 200 }) },
  {
    method: 'POST', pattern: '/v2/reconciliations/:id/matches', scope: 'recon:write', request: async () => {
      const account = `assets:${fresh('match')}`
      await createAccount(baseUrl, full, account)
      const entry = await postEntryOk(baseUrl, full, [{ account, amount: 7 }, { account: 'income:sales', amount: -7 }], { effective_at: '2018-04-05T12:00:00Z' })
      const window = await openWindowOk(baseUrl, full, { accounts: [account], from: '2018-04-01', to: '2018-04-30', claimed_movement: 7 })
      await addLinesOk(baseUrl, full, window.id, [{ amount: 7, date: '2018-04-05' }])
      return { path: `/v2/reconciliations/${window.id}/matches`, body: { statement_lines: ['l1'], entries: [entry.id], strategy: 'amount_and_date' }, status: 200 }
    },
  },
  { method: 'GET', pattern: '/v2/reconciliations/:id/matches', scope: 'recon:read', request: async () => ({ path: `/v2/reconciliations/${mine.windowAssets.id}/matches`, status: 200 }) },
  {
    method: 'DELETE', pattern: '/v2/reconciliations/:id/matches/:match_id', scope: 'recon:write', request: async () => {
      const { window, match } = await freshWindowWithMatch()
      return { path: `/v2/reconciliations/${window.id}/matches/${match.id}`, status: 200 }
    },
  },
  { method: 'GET', pattern: '/v2/reconciliations/:id/history', scope: 'recon:read', request: async () => ({ path: `/v2/reconciliations/${mine.windowAssets.id}/history`, status: 200 }) },
]

/** A concrete path for a pattern, for requests refused before the route's own rules run. */
function pathOf(pattern: string, fixture: Fixture): string {
  return pattern
    .replace('/v2/accounts/:id', `/v2/accounts/${fixture.accounts['assets:bank'].id}`)
    .replace('/v2/entries/:id', `/v2/entries/${fixture.entryAssets.id}`)
    .replace('/v2/reconciliations/:id', `/v2/reconciliations/${fixture.windowAssets.id}`)
    .replace(':match_id', fixture.matchAssets.id)
}

/** A body that would pass the schema, so only the check under test can refuse it. */
function bodyOf(route: RouteCase): unknown {
  switch (`${route.method} ${route.pattern}`) {
    case 'POST /v2/accounts': return { name: 'assets:never' }
    case 'PATCH /v2/accounts/:id': return { tags: ['never'] }
    case 'POST /v2/entries': return { lines: [{ account: 'assets:bank', amount: 5 }, { account: 'assets:cash', amount: -5 }] }
    case 'POST /v2/reconciliations': return windowBody({ accounts: ['assets:cash'], from: '2016-01-01', to: '2016-01-31', claimed_movement: 0 })
    case 'PATCH /v2/reconciliations/:id': return { state: 'abandoned', reason: 'never' }
    case 'POST /v2/reconciliations/:id/lines': return { lines: [{ amount: 1, date: '2019-01-05' }] }
    case 'POST /v2/reconciliations/:id/matches': return { statement_lines: ['l2'], entries: [mine.entryMixed.id], strategy: 'manual' }
    default: return undefined
  }
}

// Webhook routes (docs/API.md, Webhooks); DELETE and the deliveries list, which need an id, are covered by test/http/webhooks.test.ts.
routes.push(
  { method: 'GET', pattern: '/v2/webhooks', scope: 'hooks:read', request: async () => ({ path: '/v2/webhooks', status: 200 }) },
  { method: 'POST', pattern: '/v2/webhooks', scope: 'hooks:write', request: async () => ({ path: '/v2/webhooks', body: { url: 'http://127.0.0.1:9/hook', events: ['entry.posted'] }, status: 201 }) },
)

// ---------------------------------------------------------------------------------------------

t.test('every /v2 route × every scope: 403 scope_missing unless the key holds the route\'s scope', async (t) => {
  const keys = new Map<Scope, string>()
  for (const scope of scopesAll) keys.set(scope, (await adminCreateKey(service, 'default', [scope])).secret)
  let refused = 0
  for (const route of routes) {
    for (const scope of scopesAll) {
      const key = keys.get(scope)!
      const label = `${route.method} ${route.pattern} with only ${scope}`
      if (scope === route.scope) {
        const request = await route.request()
        const reply = await call(baseUrl, route.method, request.path, { key, body: request.body })
        t.equal(reply.status, request.status, `${label}: allowed (${reply.status} ${reply.status >= 300 ? reply.text.slice(0, 200) : ''})`)
        continue
      }
      const reply = await rejected(t, 'default', label, () => call(baseUrl, route.method, pathOf(route.pattern, mine), { key, body: bodyOf(route) }), 403, 'scope_missing')
      t.match(reply.body?.error?.message ?? '', route.scope, `${label}: the message names ${route.scope}`)
      t.ok(reply.headers.get('x-ratelimit-limit') !== null, `${label}: rate headers on an authenticated answer`)
      refused++
    }
  }
  t.comment(`${routes.length} routes × ${scopesAll.length} scopes: ${refused} refusals, ${routes.length} allowed`)
})

t.test('no key, a malformed, unknown or revoked key: 401 unauthenticated on every route', async (t) => {
  const revoked = await adminCreateKey(service, 'default', [...scopesAll])
  const revokeReply = await call(baseUrl, 'DELETE', `/admin/keys/${revoked.id}`, { key: service.adminToken })
  t.equal(revokeReply.status, 204, 'revoked')
  const unknownSecret = `tu_${crypto.randomBytes(32).toString('base64url')}`
  const badHeaders: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['an empty Authorization header', { authorization: '' }],
    ['"Bearer" without a key', { authorization: 'Bearer' }],
    ['"Bearer " and spaces', { authorization: 'Bearer   ' }],
    ['the key without the Bearer scheme', { authorization: full }],
    ['Basic with the key', { authorization: `Basic ${Buffer.from(`x:${full}`).toString('base64')}` }],
    ['Token scheme', { authorization: `Token ${full}` }],
    ['the key with a character too many', { authorization: `Bearer ${full}x` }],
    ['the key with a character too few', { authorization: `Bearer ${full.slice(0, -1)}` }],
    ['two keys', { authorization: `Bearer ${full} ${full}` }],
    ['an unknown well-formed key', { authorization: `Bearer ${unknownSecret}` }],
    ['a key of 513 characters', { authorization: `Bearer ${'k'.repeat(513)}` }],
    ['the admin token', { authorization: `Bearer ${service.adminToken}` }],
    ['a revoked key', { authorization: `Bearer ${revoked.secret}` }],
    ["the key's hash", { authorization: `Bearer ${crypto.createHash('sha256').update(full).digest('hex')}` }],
  ]
  const before = await workspaceState(service.service, 'default')
  let count = 0
  for (const route of routes) {
    for (const [name, headers] of badHeaders) {
      const body = bodyOf(route)
      const reply = await call(baseUrl, route.method, pathOf(route.pattern, mine), { headers, body: body === undefined ? undefined : body })
      if (reply.status !== 401 || reply.body?.error?.code !== 'unauthenticated') assertError(t, reply, 401, 'unauthenticated', `${route.method} ${route.pattern} with ${name}`)
      t.equal(envelopeProblem(reply.body), null, `${route.method} ${route.pattern} with ${name}: envelope`)
      t.equal(reply.headers.get('x-ratelimit-remaining'), null, `${route.method} ${route.pattern} with ${name}: no workspace's rate headers`)
      count++
    }
  }
  const after = await workspaceState(service.service, 'default')
  t.ok(after === before, `state unchanged by ${count} unauthenticated requests${after === before ? '' : ` (${firstDifference(before, after)})`}`)
  t.comment(`${count} unauthenticated requests`)
})

// ---------------------------------------------------------------------------------------------

t.test("another workspace's ids: 404 on every route, never 403, never its data", async (t) => {
  for (const [viewer, owner] of [[mine, theirs], [theirs, mine]] as const) {
    const secrets = [owner.entryAssets.id, owner.entryMixed.id, owner.windowAssets.id, owner.windowIncome.id, owner.matchAssets.id, owner.accounts['assets:bank'].id, `assets:${owner === theirs ? 'theirs-only' : 'mine-only'}`, owner === theirs ? 'theirs-only' : 'mine-only']
    const ownerBefore = await workspaceState(service.service, owner.workspace)
    const hidden = async (label: string, method: string, route: string, body: unknown, code = 'not_found') => {
      const reply = await rejected(t, viewer.workspace, `${viewer.workspace} → ${owner.workspace}: ${label}`, () => call(baseUrl, method, route, { key: viewer.key, body }), 404, code)
      // Echoing what the client itself sent is no leak; anything else of the owner is.
      const sent = decodeURIComponent(route) + JSON.stringify(body ?? null)
      for (const secret of secrets) if (!sent.includes(secret) && reply.text.includes(secret)) t.fail(`${label}: the answer shows ${secret} of ${owner.workspace}: ${reply.text.slice(0, 300)}`)
    }
    const accountId = owner.accounts['assets:bank'].id
    const uniqueName = encodeURIComponent(`assets:${owner === theirs ? 'theirs-only' : 'mine-only'}`)
    const window = owner.windowAssets.id
    await hidden('GET account by id', 'GET', `/v2/accounts/${accountId}`, undefined)
    await hidden('GET account by a name only it has', 'GET', `/v2/accounts/${uniqueName}`, undefined)
    await hidden('PATCH account by id', 'PATCH', `/v2/accounts/${accountId}`, { tags: ['stolen'] })
    await hidden('PATCH account by a name only it has', 'PATCH', `/v2/accounts/${uniqueName}`, { name: 'assets:stolen' })
    await hidden('balance by id', 'GET', `/v2/accounts/${accountId}/balance`, undefined)
    await hidden('balance by a name only it has', 'GET', `/v2/accounts/${uniqueName}/balance`, undefined)
    await hidden('GET entry', 'GET', `/v2/entries/${owner.entryAssets.id}`, undefined)
    await hidden('GET window', 'GET', `/v2/reconciliations/${window}`, undefined)
    await hidden('PATCH window', 'PATCH', `/v2/reconciliations/${window}`, { state: 'abandoned', reason: 'stolen' })
    await hidden('POST lines', 'POST', `/v2/reconciliations/${window}/lines`, { lines: [{ amount: 1, date: '2019-01-05' }] })
    await hidden('GET lines', 'GET', `/v2/reconciliations/${window}/lines`, undefined)
    await hidden('POST matches', 'POST', `/v2/reconciliations/${window}/matches`, { statement_lines: ['l2'], entries: [owner.entryMixed.id], strategy: 'manual' })
    await hidden('GET matches', 'GET', `/v2/reconciliations/${window}/matches`, undefined)
    await hidden('DELETE match of its window', 'DELETE', `/v2/reconciliations/${window}/matches/${owner.matchAssets.id}`, undefined)
    await hidden('DELETE its match on an own window', 'DELETE', `/v2/reconciliations/${viewer.windowAssets.id}/matches/${owner.matchAssets.id}`, undefined)
    await hidden('GET history', 'GET', `/v2/reconciliations/${window}/history`, undefined)
    await hidden('entries listed by its account', 'GET', `/v2/entries?account=${accountId}`, undefined, 'account_unknown')
    await hidden('entries listed by its window', 'GET', `/v2/entries?reconciliation=${window}`, undefined)
    await hidden('windows listed by its account', 'GET', `/v2/reconciliations?account=${accountId}`, undefined, 'account_unknown')
    await hidden('posting to its account ids', 'POST', '/v2/entries', { lines: [{ account: accountId, amount: 1 }, { account: viewer.accounts['assets:cash'].id, amount: -1 }] }, 'account_unknown')
    await hidden('opening a window over its account id', 'POST', '/v2/reconciliations', windowBody({ accounts: [accountId], from: '2015-01-01', to: '2015-01-31', claimed_movement: 0 }), 'account_unknown')
    await hidden('opening a window over a name only it has', 'POST', '/v2/reconciliations', windowBody({ accounts: [decodeURIComponent(uniqueName)], from: '2015-01-01', to: '2015-01-31', claimed_movement: 0 }), 'account_unknown')
    await hidden('matching its entry on an own window', 'POST', `/v2/reconciliations/${viewer.windowAssets.id}/matches`, { statement_lines: ['l2'], entries: [owner.entryMixed.id], strategy: 'manual' })
    for (const list of ['/v2/accounts', '/v2/entries', '/v2/reconciliations']) {
      const reply = await call(baseUrl, 'GET', `${list}?limit=1000`, { key: viewer.key })
      t.equal(reply.status, 200, `${list}: listed`)
      for (const secret of secrets) if (reply.text.includes(secret)) t.fail(`${list} of ${viewer.workspace} shows ${secret} of ${owner.workspace}`)
    }
    const ownerAfter = await workspaceState(service.service, owner.workspace)
    t.ok(ownerAfter === ownerBefore, `${owner.workspace} untouched${ownerAfter === ownerBefore ? '' : ` (${firstDifference(ownerBefore, ownerAfter)})`}`)
  }
})

// ---------------------------------------------------------------------------------------------

t.test("a key restricted to ['assets:*'] sees, reads and names only assets accounts", async (t) => {
  const restricted = (await adminCreateKey(service, 'default', [...scopesAll], ['assets:*'])).secret
  const income = mine.accounts['income:sales']
  const incomeTexts = [income.id, 'income:sales', 'expenses:fees', mine.accounts['expenses:fees'].id, mine.entryMixed.id, mine.windowIncome.id, mine.windowMixed.id, mine.matchIncome.id]
  const get = (route: string) => call(baseUrl, 'GET', route, { key: restricted })
  /** Echoing what the client itself sent is no leak; any other text of the hidden accounts is. */
  const noLeak = (label: string, reply: Reply, sent = '') => {
    for (const text of incomeTexts) if (!sent.includes(text) && reply.text.includes(text)) t.fail(`${label}: the answer shows ${text}: ${reply.text.slice(0, 300)}`)
  }
  const refuse = async (label: string, method: string, route: string, body: unknown, status: number, code: string) => {
    noLeak(label, await rejected(t, 'default', label, () => call(baseUrl, method, route, { key: restricted, body }), status, code), decodeURIComponent(route) + JSON.stringify(body ?? null))
  }

  const accounts = await get('/v2/accounts?limit=1000')
  t.equal(accounts.status, 200)
  t.ok(accounts.body.data.length > 0 && accounts.body.data.every((account: any) => account.name.startsWith('assets:')), 'account list: only assets:*')
  t.ok(accounts.body.data.some((account: any) => account.name === 'assets:bank'), 'account list: assets:bank is there')
  noLeak('account list', accounts)
  const entries = await get('/v2/entries?limit=1000')
  t.ok(entries.body.data.some((entry: any) => entry.id === mine.entryAssets.id), 'entry list: the assets-only entry is there')
  noLeak('entry list', entries)
  const byBank = await get(`/v2/entries?account=${encodeURIComponent('assets:bank')}&limit=1000`)
  t.same(byBank.body.data.map((entry: any) => entry.id).filter((id: string) => id === mine.entryMixed.id), [], 'entries of assets:bank leave out the entry that also touches income')
  noLeak('entry list by assets:bank', byBank)
  const windows = await get('/v2/reconciliations?limit=1000')
  t.ok(windows.body.data.some((window: any) => window.id === mine.windowAssets.id), 'window list: the assets window is there')
  noLeak('window list', windows)
  const byCash = await get(`/v2/reconciliations?account=${encodeURIComponent('assets:cash')}`)
  t.equal(byCash.status, 200)
  noLeak('window list by assets:cash (its window also covers expenses:fees)', byCash)
  for (const route of [`/v2/accounts/${mine.accounts['assets:bank'].id}`, `/v2/entries/${mine.entryAssets.id}`, `/v2/reconciliations/${mine.windowAssets.id}`, `/v2/reconciliations/${mine.windowAssets.id}/matches`, `/v2/reconciliations/${mine.windowAssets.id}/history`]) {
    const reply = await get(route)
    t.equal(reply.status, 200, `${route}: visible`)
    noLeak(route, reply)
  }

  await refuse('GET income account by id', 'GET', `/v2/accounts/${income.id}`, undefined, 404, 'not_found')
  await refuse('GET income account by name', 'GET', `/v2/accounts/${encodeURIComponent('income:sales')}`, undefined, 404, 'not_found')
  await refuse('balance of income by id', 'GET', `/v2/accounts/${income.id}/balance`, undefined, 404, 'not_found')
  await refuse('balance of income by name', 'GET', `/v2/accounts/${encodeURIComponent('income:sales')}/balance?at=2030-01-01T00:00:00Z`, undefined, 404, 'not_found')
  await refuse('PATCH of income', 'PATCH', `/v2/accounts/${income.id}`, { tags: ['x'] }, 404, 'not_found')
  await refuse('GET the entry touching income', 'GET', `/v2/entries/${mine.entryMixed.id}`, undefined, 404, 'not_found')
  await refuse('entries listed by income', 'GET', `/v2/entries?account=${encodeURIComponent('income:sales')}`, undefined, 404, 'account_unknown')
  await refuse('entries listed by the income window', 'GET', `/v2/entries?reconciliation=${mine.windowIncome.id}`, undefined, 404, 'not_found')
  await refuse('windows listed by income', 'GET', `/v2/reconciliations?account=${income.id}`, undefined, 404, 'account_unknown')
  for (const [name, window, match] of [['income window', mine.windowIncome, mine.matchIncome], ['window over assets:cash and expenses:fees', mine.windowMixed, null]] as const) {
    await refuse(`GET ${name}`, 'GET', `/v2/reconciliations/${window.id}`, undefined, 404, 'not_found')
    await refuse(`PATCH ${name}`, 'PATCH', `/v2/reconciliations/${window.id}`, { state: 'abandoned', reason: 'hidden' }, 404, 'not_found')
    await refuse(`POST lines to ${name}`, 'POST', `/v2/reconciliations/${window.id}/lines`, { lines: [{ amount: 1, date: window.window.from }] }, 404, 'not_found')
    await refuse(`GET lines of ${name}`, 'GET', `/v2/reconciliations/${window.id}/lines`, undefined, 404, 'not_found')
    await refuse(`POST matches to ${name}`, 'POST', `/v2/reconciliations/${window.id}/matches`, { statement_lines: ['l1'], strategy: 'write_off', reason: 'hidden' }, 404, 'not_found')
    await refuse(`GET matches of ${name}`, 'GET', `/v2/reconciliations/${window.id}/matches`, undefined, 404, 'not_found')
    await refuse(`GET history of ${name}`, 'GET', `/v2/reconciliations/${window.id}/history`, undefined, 404, 'not_found')
    if (match !== null) await refuse(`DELETE a match of ${name}`, 'DELETE', `/v2/reconciliations/${window.id}/matches/${match.id}`, undefined, 404, 'not_found')
  }
  await refuse('posting to income by name', 'POST', '/v2/entries', { lines: [{ account: 'assets:bank', amount: 9 }, { account: 'income:sales', amount: -9 }] }, 404, 'account_unknown')
  await refuse('posting to income by id', 'POST', '/v2/entries', { lines: [{ account: 'assets:bank', amount: 9 }, { account: income.id, amount: -9 }] }, 404, 'account_unknown')
  await refuse('creating income:new', 'POST', '/v2/accounts', { name: 'income:new' }, 403, 'scope_missing')
  await refuse('creating assetsx:new (prefix without the colon)', 'POST', '/v2/accounts', { name: 'assetsx:new' }, 403, 'scope_missing')
  await refuse('renaming assets:bank into income:renamed', 'PATCH', `/v2/accounts/${mine.accounts['assets:bank'].id}`, { name: 'income:renamed' }, 403, 'scope_missing')
  await refuse('opening a window naming income', 'POST', '/v2/reconciliations', windowBody({ accounts: ['assets:bank', 'income:sales'], from: '2014-01-01', to: '2014-01-31', claimed_movement: 0 }), 404, 'account_unknown')
  await refuse('opening a window naming income by id', 'POST', '/v2/reconciliations', windowBody({ accounts: [income.id], from: '2014-01-01', to: '2014-01-31', claimed_movement: 0 }), 404, 'account_unknown')
  await refuse('matching the entry touching income', 'POST', `/v2/reconciliations/${mine.windowAssets.id}/matches`, { statement_lines: ['l2'], entries: [mine.entryMixed.id], strategy: 'manual' }, 404, 'not_found')
  // An overlap with a window the key cannot see: refused, but without naming that window.
  await refuse('opening a window overlapping the hidden assets:cash + expenses:fees window', 'POST', '/v2/reconciliations', windowBody({ accounts: ['assets:cash'], from: '2019-02-10', to: '2019-02-20', claimed_movement: 0 }), 409, 'window_overlap')

  const created = await call(baseUrl, 'POST', '/v2/accounts', { key: restricted, body: { name: `assets:${fresh('visible')}` } })
  t.equal(created.status, 201, 'creating an assets:* account is allowed')
})

// ---------------------------------------------------------------------------------------------

t.test('secrets never reach disk or logs in clear; the stored hash is not the secret', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-secrets-'))
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }))
  const adminToken = `adm_${crypto.randomBytes(24).toString('base64url')}`
  const running = await startProcess({ dataDir, adminToken, env: { LOG_LEVEL: 'trace' } })
  let stopped = false
  t.teardown(async () => { if (!stopped) await killHard(running) })
  const firstKey = running.apiKey
  t.ok(firstKey !== null, 'the first start printed its key once')
  const secrets: string[] = []
  for (const scopes of [[...scopesAll], ['accounts:read'], ['entries:write', 'recon:read']] as Scope[][]) {
    const reply = await call(running.baseUrl, 'POST', '/admin/keys', { key: adminToken, body: { workspace: 'default', scopes, name: 'secret-test' } })
    t.equal(reply.status, 201, 'key created')
    secrets.push(reply.body.secret)
    t.notOk(JSON.stringify(reply.body).includes(adminToken), 'the admin token is not echoed')
  }
  // Use every secret, right and wrong, on /v2 and /admin, so any request logging would see them.
  for (const secret of [...secrets, firstKey!]) {
    await call(running.baseUrl, 'POST', '/v2/accounts', { key: secret, body: { name: `assets:${fresh('log')}` }, headers: { 'idempotency-key': `k-${secret.slice(-6)}` } })
    await call(running.baseUrl, 'GET', '/v2/accounts', { key: secret })
    await call(running.baseUrl, 'GET', '/v2/accounts', { key: `${secret}x` })
    await call(running.baseUrl, 'POST', '/admin/keys', { key: secret, body: { workspace: 'default', scopes: [] } })
  }
  await call(running.baseUrl, 'POST', '/admin/keys', { key: `${adminToken}x`, body: { workspace: 'default', scopes: [] } })
  await call(running.baseUrl, 'GET', '/v2/accounts', { key: adminToken })
  const revoke = await call(running.baseUrl, 'POST', '/admin/keys', { key: adminToken, body: { workspace: 'default', scopes: ['accounts:read'] } })
  secrets.push(revoke.body.secret)
  t.equal((await call(running.baseUrl, 'DELETE', `/admin/keys/${revoke.body.id}`, { key: adminToken })).status, 204)

  running.child.kill('SIGTERM')
  const exit = await running.exited
  stopped = true
  t.equal(exit.code, 0, 'graceful stop (log flushed, snapshots written)')

  const files: string[] = []
  const walk = (dir: string) => { for (const entry of fs.readdirSync(dir, { withFileTypes: true })) entry.isDirectory() ? walk(path.join(dir, entry.name)) : files.push(path.join(dir, entry.name)) }
  walk(dataDir)
  t.ok(files.length > 0, `data dir holds ${files.length} files`)
  const contents = files.map((file) => ({ file, bytes: fs.readFileSync(file) }))
  const findIn = (needle: string) => contents.filter(({ bytes }) => bytes.includes(Buffer.from(needle, 'utf8'))).map(({ file }) => path.relative(dataDir, file))
  for (const secret of [...secrets, firstKey!]) {
    t.same(findIn(secret), [], `secret …${secret.slice(-6)} is in no file of the data dir`)
    // The scan can see what is there: the hash of every secret is stored.
    const hash = crypto.createHash('sha256').update(secret).digest('hex')
    t.not(hash, secret, 'the stored form differs from the secret')
    t.ok(findIn(hash).length > 0, `the hash of …${secret.slice(-6)} is found, so the scan reads the log`)
  }
  t.same(findIn(adminToken), [], 'the admin token (from the environment) is in no file of the data dir')
  const stdout = running.stdout.join('\n')
  const stderr = running.stderr.join('')
  t.comment(`the service wrote ${running.stdout.length} stdout lines and ${stderr.length} stderr characters at LOG_LEVEL=trace`)
  for (const secret of secrets) {
    t.notOk(stdout.includes(secret), `secret …${secret.slice(-6)} is not on stdout`)
    t.notOk(stderr.includes(secret), `secret …${secret.slice(-6)} is not on stderr`)
  }
  t.equal(stdout.split(firstKey!).length - 1, 1, 'the first-start key is printed exactly once (README.md, Configuration)')
  t.notOk(stderr.includes(firstKey!), 'the first-start key is not on stderr')
  t.notOk(stdout.includes(adminToken) || stderr.includes(adminToken), 'the admin token is never printed')
})

t.test('the in-memory key records hold a hash, never the secret', async (t) => {
  const created = await adminCreateKey(service, 'default', ['accounts:read'])
  const records = await keyRecords(service.service)
  const record = records.find((each) => each.id === created.id)
  t.ok(record !== undefined, 'the key is stored')
  t.not(record!.secretHash, created.secret, 'stored hash ≠ secret')
  t.notOk(record!.secretHash.includes(created.secret), 'the secret is not inside the stored hash')
  t.equal(record!.secretHash, crypto.createHash('sha256').update(created.secret).digest('hex'), 'the stored hash is SHA-256 of the secret')
  t.notOk(JSON.stringify(records).includes(created.secret), 'no key record holds the secret')
})

t.test('the admin token is compared with crypto.timingSafeEqual, on equal-length digests', async (t) => {
  const calls: [number, number][] = []
  // The comparison is injected rather than node:crypto mocked: tap's mockImport hangs under Node 22's loader hooks.
  const { isAdmin, tokenComparisonDefault } = await import('../../src/api/auth.ts')
  const watched = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    calls.push([a.byteLength, b.byteLength])
    return crypto.timingSafeEqual(a, b)
  }
  t.equal(tokenComparisonDefault, crypto.timingSafeEqual, 'by default tokens are compared with node:crypto timingSafeEqual')
  const token = 'the-admin-token-0123456789'
  const cases: [string, string | undefined, boolean][] = [
    ['the right token', `Bearer ${token}`, true],
    ['a shorter token', `Bearer ${token.slice(0, 5)}`, false],
    ['a longer token', `Bearer ${token}${token}`, false],
    ['a token of equal length, last character wrong', `Bearer ${token.slice(0, -1)}X`, false],
    ['a one-character token', 'Bearer x', false],
    ['a 10,000-character token', `Bearer ${'t'.repeat(10_000)}`, false],
  ]
  for (const [name, header, expected] of cases) {
    const before = calls.length
    t.equal(isAdmin(token, header, watched), expected, `${name}: ${expected ? 'admitted' : 'refused'}`)
    t.equal(calls.length, before + 1, `${name}: compared with timingSafeEqual`)
    const [a, b] = calls[calls.length - 1]
    t.equal(a, b, `${name}: both sides of equal length (${a} bytes), whatever the token's length`)
  }
  t.equal(isAdmin(token, undefined), false, 'no header: refused')
  t.equal(isAdmin(token, token), false, 'no Bearer scheme: refused')
})

// ---------------------------------------------------------------------------------------------
// Limits on every input, at the edge and one past it. Each refusal changes nothing.

t.test('limits hold at the edge and one past it', async (t) => {
  const { from, to } = period(1)
  const limitAccount = `assets:${fresh('limits')}`
  await createAccount(baseUrl, full, limitAccount)
  const window = await openWindowOk(baseUrl, full, { accounts: [limitAccount], from, to, claimed_movement: 0 })
  const lines = (count: number) => Array.from({ length: count }, (_, index) => ({ amount: 1, date: from, reference: `r${index}` }))

  await rejected(t, 'default', '10,001 statement lines (JSON)', () => call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/lines`, { key: full, body: { lines: lines(10_001) } }), 400, 'request_invalid')
  const tenThousand = await call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/lines`, { key: full, body: { lines: lines(10_000) } })
  t.equal(tenThousand.status, 201, '10,000 statement lines (JSON): 201')
  t.equal(tenThousand.body?.lines_count, 10_000, '10,000 lines stored')
  const csvRows = (count: number) => `date,amount\n${Array.from({ length: count }, () => `${from},1`).join('\n')}\n`
  await rejected(t, 'default', '10,001 statement lines (CSV)', () => call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/lines`, { key: full, raw: csvRows(10_001), headers: { 'content-type': 'text/csv' } }), 400, 'request_invalid')

  // Statement lines per match: 1,000 reach the ledger's rules (here: accepted); 1,001 are refused by the schema.
  const entry = await postEntryOk(baseUrl, full, [{ account: limitAccount, amount: 1000 }, { account: 'income:sales', amount: -1000 }], { effective_at: `${from}T12:00:00Z` })
  const ids = (first: number, count: number) => Array.from({ length: count }, (_, index) => `l${first + index}`)
  await rejected(t, 'default', '1,001 statement lines in a match', () => call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/matches`, { key: full, body: { statement_lines: ids(1, 1001), entries: [entry.id], strategy: 'manual' } }), 400, 'request_invalid')
  const thousand = await call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/matches`, { key: full, body: { statement_lines: ids(1, 1000), entries: [entry.id], strategy: 'amount_and_date' } })
  t.equal(thousand.status, 200, `1,000 statement lines in a match reach the ledger and match (${thousand.status} ${thousand.status === 200 ? '' : thousand.text.slice(0, 200)})`)
  await rejected(t, 'default', '1,001 entries in a match', () => call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/matches`, { key: full, body: { statement_lines: ['l2000'], entries: Array.from({ length: 1001 }, () => entry.id), strategy: 'manual' } }), 400, 'request_invalid')

  // Accounts per window.
  const many: string[] = []
  for (let index = 0; index < 101; index++) many.push((await createAccount(baseUrl, full, `assets:${fresh('many')}`)).name)
  await rejected(t, 'default', '101 accounts in a window', () => call(baseUrl, 'POST', '/v2/reconciliations', { key: full, body: windowBody({ accounts: many, ...period(2), claimed_movement: 0 }) }), 400, 'request_invalid')
  const hundred = await call(baseUrl, 'POST', '/v2/reconciliations', { key: full, body: windowBody({ accounts: many.slice(0, 100), ...period(2), claimed_movement: 0 }) })
  t.equal(hundred.status, 201, '100 accounts in a window: 201')

  // Entry lines.
  const entryLines = (count: number) => Array.from({ length: count }, (_, index) => ({ account: index % 2 === 0 ? 'assets:bank' : 'assets:cash', amount: index === count - 1 && count % 2 === 1 ? 0 : index % 2 === 0 ? 1 : -1 }))
  const evenLines = (count: number) => { const list = entryLines(count); if (count % 2 === 1) { list[count - 1] = { account: 'assets:cash', amount: -1 }; list[0] = { account: 'assets:bank', amount: 2 } } return list }
  await rejected(t, 'default', '1,001 entry lines', () => call(baseUrl, 'POST', '/v2/entries', { key: full, body: { lines: evenLines(1001), effective_at: '2016-06-01T00:00:00Z' } }), 400, 'request_invalid')
  const entryThousand = await call(baseUrl, 'POST', '/v2/entries', { key: full, body: { lines: evenLines(1000), effective_at: '2016-06-01T00:00:00Z' } })
  t.equal(entryThousand.status, 201, `1,000 entry lines: 201 ${entryThousand.status === 201 ? '' : entryThousand.text.slice(0, 200)}`)

  // Body size: 1 MiB is read; one byte more is 413.
  const mebibyte = 1024 * 1024
  const padded = (json: string, size: number) => json.slice(0, -1) + ' '.repeat(size - json.length) + '}'
  const exact = padded(JSON.stringify({ name: `assets:${fresh('mib')}` }), mebibyte)
  t.equal(Buffer.byteLength(exact), mebibyte)
  const atLimit = await call(baseUrl, 'POST', '/v2/accounts', { key: full, raw: exact, headers: { 'content-type': 'application/json' } })
  t.equal(atLimit.status, 201, 'a body of exactly 1 MiB: 201')
  await rejected(t, 'default', 'a body of 1 MiB + 1 byte', () => call(baseUrl, 'POST', '/v2/accounts', { key: full, raw: padded(JSON.stringify({ name: `assets:${fresh('mib')}` }), mebibyte + 1), headers: { 'content-type': 'application/json' } }), 413, 'body_too_large')

  // CSV import: 16 MiB is read; one byte more is 413. 10,000 rows padded (amounts are trimmed) to the size.
  const csvWindowAccount = `assets:${fresh('csv')}`
  await createAccount(baseUrl, full, csvWindowAccount)
  const csvWindow = await openWindowOk(baseUrl, full, { accounts: [csvWindowAccount], ...period(3), claimed_movement: 0 })
  const csvOfSize = (size: number) => {
    const header = 'date,amount\n'
    const rowsCount = 10_000
    const base = `${period(3).from},1\n`
    const spare = size - header.length - rowsCount * base.length
    const rows: string[] = []
    for (let index = 0; index < rowsCount; index++) {
      const pad = Math.floor(spare / rowsCount) + (index < spare % rowsCount ? 1 : 0)
      rows.push(`${period(3).from},${' '.repeat(pad)}1\n`)
    }
    return header + rows.join('')
  }
  const csvExact = csvOfSize(16 * mebibyte)
  t.equal(Buffer.byteLength(csvExact), 16 * mebibyte)
  const csvAtLimit = await call(baseUrl, 'POST', `/v2/reconciliations/${csvWindow.id}/lines`, { key: full, raw: csvExact, headers: { 'content-type': 'text/csv' } })
  t.equal(csvAtLimit.status, 201, `a CSV of exactly 16 MiB: 201 ${csvAtLimit.status === 201 ? '' : csvAtLimit.text.slice(0, 200)}`)
  await rejected(t, 'default', 'a CSV of 16 MiB + 1 byte', () => call(baseUrl, 'POST', `/v2/reconciliations/${csvWindow.id}/lines`, { key: full, raw: csvOfSize(16 * mebibyte + 1), headers: { 'content-type': 'text/csv' } }), 413, 'body_too_large')
  await rejected(t, 'default', 'a JSON body of 1 MiB + 1 byte on the lines route (16 MiB is for CSV; JSON too)', async () => {
    const reply = await call(baseUrl, 'POST', `/v2/reconciliations/${csvWindow.id}/lines`, { key: full, raw: padded(JSON.stringify({ lines: [{ amount: 1, date: period(3).from }] }), 16 * mebibyte + 1), headers: { 'content-type': 'application/json' } })
    return reply
  }, 413, 'body_too_large')

  // Label, reason, Idempotency-Key, account name.
  const labelAccount = `assets:${fresh('label')}`
  await createAccount(baseUrl, full, labelAccount)
  await rejected(t, 'default', 'label of 201 characters', () => call(baseUrl, 'POST', '/v2/reconciliations', { key: full, body: windowBody({ label: 'l'.repeat(201), accounts: [labelAccount], ...period(4), claimed_movement: 0 }) }), 400, 'request_invalid')
  const label200 = await call(baseUrl, 'POST', '/v2/reconciliations', { key: full, body: windowBody({ label: 'l'.repeat(200), accounts: [labelAccount], ...period(4), claimed_movement: 0 }) })
  t.equal(label200.status, 201, 'label of 200 characters: 201')
  await rejected(t, 'default', 'abandon reason of 501 characters', () => patchWindow(baseUrl, full, label200.body.id, { state: 'abandoned', reason: 'r'.repeat(501) }), 400, 'request_invalid')
  const abandon500 = await patchWindow(baseUrl, full, label200.body.id, { state: 'abandoned', reason: 'r'.repeat(500) })
  t.equal(abandon500.status, 200, 'abandon reason of 500 characters: 200')
  const { window: writeOffWindow } = await freshWindowWithMatch()
  await addLinesOk(baseUrl, full, writeOffWindow.id, [{ amount: 3, date: '2018-03-06' }])
  await rejected(t, 'default', 'write-off reason of 501 characters', () => call(baseUrl, 'POST', `/v2/reconciliations/${writeOffWindow.id}/matches`, { key: full, body: { statement_lines: ['l2'], strategy: 'write_off', reason: 'w'.repeat(501) } }), 400, 'request_invalid')
  const writeOff500 = await call(baseUrl, 'POST', `/v2/reconciliations/${writeOffWindow.id}/matches`, { key: full, body: { statement_lines: ['l2'], strategy: 'write_off', reason: 'w'.repeat(500) } })
  t.equal(writeOff500.status, 200, 'write-off reason of 500 characters: 200')
  const { window: balancedWindow } = await freshWindowWithMatch()
  await rejected(t, 'default', 'close reason of 501 characters', () => patchWindow(baseUrl, full, balancedWindow.id, { state: 'closed', reason: 'c'.repeat(501) }), 400, 'request_invalid')
  const close500 = await patchWindow(baseUrl, full, balancedWindow.id, { state: 'closed', reason: 'c'.repeat(500) })
  t.equal(close500.status, 200, `close reason of 500 characters: 200 ${close500.status === 200 ? '' : close500.text.slice(0, 200)}`)
  await rejected(t, 'default', 'Idempotency-Key of 256 characters', () => call(baseUrl, 'POST', '/v2/accounts', { key: full, body: { name: `assets:${fresh('idem')}` }, headers: { 'idempotency-key': 'i'.repeat(256) } }), 400, 'request_invalid')
  const key255 = await call(baseUrl, 'POST', '/v2/accounts', { key: full, body: { name: `assets:${fresh('idem')}` }, headers: { 'idempotency-key': 'i'.repeat(255) } })
  t.equal(key255.status, 201, 'Idempotency-Key of 255 characters: 201')
  const name200 = `assets:${'n'.repeat(193)}`
  t.equal(name200.length, 200)
  await rejected(t, 'default', 'account name of 201 characters', () => call(baseUrl, 'POST', '/v2/accounts', { key: full, body: { name: `${name200}n` } }), 400, 'request_invalid')
  t.equal((await call(baseUrl, 'POST', '/v2/accounts', { key: full, body: { name: name200 } })).status, 201, 'account name of 200 characters: 201')
})
