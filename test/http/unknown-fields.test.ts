/**
 * Unknown body fields (issue 24, item 5): every field a body does not know, at the top or nested, is
 * 400 request_invalid naming it, on every route that takes a JSON body, and the rejected request changes
 * nothing. A match batch item with `dry_run` is one of them: the flag belongs to the batch, and an item
 * that carried it used to be committed.
 */
import t from 'tap'
import type { TSchema } from 'typebox'
import { adminRoutes } from '../../src/api/admin-routes.ts'
import { v2Routes } from '../../src/api/route-table.ts'
import { assertError, createAccount, detailPaths, postEntryOk, raiseLimits } from '../support/api.ts'
import { manualClock } from '../support/clock.ts'
import { addLinesOk, matchesOf, openWindowOk, pair, readWindow } from '../support/recon.ts'
import { systemState, workspaceLastSeq, workspaceState } from '../support/probes.ts'
import { call, startTestService, type Reply } from '../support/service.ts'
import { firstDifference } from '../support/state-fingerprint.ts'

const clock = manualClock(Date.parse('2026-11-22T12:00:00.000Z'))
const service = await startTestService({ clock: clock.now })
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key, adminToken } = service
await raiseLimits(service, 'default')
for (const name of ['assets:bank', 'income:sales']) await createAccount(baseUrl, key, name)
const entry = await postEntryOk(baseUrl, key, pair('assets:bank', 'income:sales', 700), { effective_at: '2026-10-05T00:00:00Z' })
const window = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2026-10-01', to: '2026-10-31', claimed_movement: 700 })
await addLinesOk(baseUrl, key, window.id, [{ amount: 700, date: '2026-10-05' }])
const accountId = (await call(baseUrl, 'GET', '/v2/accounts/assets:bank', { key })).body.id
const matchBody = { statement_lines: ['l1'], entries: [entry.id], strategy: 'amount_and_date' }
const ruleBody = { name: 'r', priority: 1, action: 'auto_match', strategy: 'one_to_one', conditions: { amount: 'exact' } }
const ruleId = (await call(baseUrl, 'POST', '/v2/matching-rules', { key, body: ruleBody })).body.id

interface Case {
  readonly method: string
  /** The route's pattern, to check that every route with a body has a case. */
  readonly pattern: string
  readonly path: string
  /** A body the route accepts, but for the unknown fields at `unknown`. */
  readonly body: unknown
  /** The paths the answer's details must name: exactly the unknown fields. */
  readonly unknown: readonly string[]
  readonly admin?: true
}

const entryBody = { lines: pair('assets:bank', 'income:sales', 5), effective_at: '2026-10-06T00:00:00Z' }
const windowBody = { label: 'W', accounts: ['income:sales'], window: { from: '2026-09-01', to: '2026-09-30' }, claimed_movement: 0 }
const lineBody = { amount: 5, date: '2026-10-06', counterparty: { name: 'ACME', account: 'DE00' } }

const cases: readonly Case[] = [
  { method: 'POST', pattern: '/v2/accounts', path: '/v2/accounts', body: { name: 'assets:new', colour: 'red' }, unknown: ['/colour'] },
  { method: 'PATCH', pattern: '/v2/accounts/:id', path: `/v2/accounts/${accountId}`, body: { tags: ['a'], Name: 'x' }, unknown: ['/Name'] },
  { method: 'POST', pattern: '/v2/entries', path: '/v2/entries', body: { ...entryBody, memo: 'x' }, unknown: ['/memo'] },
  { method: 'POST', pattern: '/v2/entries', path: '/v2/entries', body: { ...entryBody, lines: [{ ...entryBody.lines[0], currency: 'EUR' }, entryBody.lines[1]] }, unknown: ['/lines/0/currency'] },
  // The body's schema answers before the entry is looked up: no entry need exist.
  { method: 'POST', pattern: '/v2/entries/:id/reverse', path: '/v2/entries/ent_unknown/reverse', body: { description: 'undo', memo: 'x' }, unknown: ['/memo'] },
  { method: 'POST', pattern: '/v2/entries/batch', path: '/v2/entries/batch', body: { entries: [entryBody], mode: 'all' }, unknown: ['/mode'] },
  { method: 'POST', pattern: '/v2/entries/batch', path: '/v2/entries/batch', body: { entries: [entryBody, { ...entryBody, dry_run: true }] }, unknown: ['/entries/1/dry_run'] },
  { method: 'POST', pattern: '/v2/entries/batch', path: '/v2/entries/batch', body: { entries: [{ ...entryBody, lines: [entryBody.lines[0], { ...entryBody.lines[1], note: 'x' }] }] }, unknown: ['/entries/0/lines/1/note'] },
  { method: 'POST', pattern: '/v2/reconciliations', path: '/v2/reconciliations', body: { ...windowBody, currency: 'EUR' }, unknown: ['/currency'] },
  { method: 'POST', pattern: '/v2/reconciliations', path: '/v2/reconciliations', body: { ...windowBody, window: { ...windowBody.window, timezone: 'UTC' } }, unknown: ['/window/timezone'] },
  { method: 'PATCH', pattern: '/v2/reconciliations/:id', path: `/v2/reconciliations/${window.id}`, body: { state: 'abandoned', reason: 'r', force: true }, unknown: ['/force'] },
  { method: 'POST', pattern: '/v2/reconciliations/:id/lines', path: `/v2/reconciliations/${window.id}/lines`, body: { lines: [lineBody], source: 'bank' }, unknown: ['/source'] },
  { method: 'POST', pattern: '/v2/reconciliations/:id/lines', path: `/v2/reconciliations/${window.id}/lines`, body: { lines: [lineBody, { ...lineBody, id: 'l9' }] }, unknown: ['/lines/1/id'] },
  { method: 'POST', pattern: '/v2/reconciliations/:id/lines', path: `/v2/reconciliations/${window.id}/lines`, body: { lines: [{ ...lineBody, counterparty: { ...lineBody.counterparty, bic: 'X' } }] }, unknown: ['/lines/0/counterparty/bic'] },
  { method: 'POST', pattern: '/v2/reconciliations/:id/matches', path: `/v2/reconciliations/${window.id}/matches`, body: { ...matchBody, dryrun: true }, unknown: ['/dryrun'] },
  { method: 'POST', pattern: '/v2/reconciliations/:id/matches/batch', path: `/v2/reconciliations/${window.id}/matches/batch`, body: { matches: [matchBody], atomic: true }, unknown: ['/atomic'] },
  { method: 'POST', pattern: '/v2/reconciliations/:id/matches/batch', path: `/v2/reconciliations/${window.id}/matches/batch`, body: { matches: [{ ...matchBody, dry_run: true }] }, unknown: ['/matches/0/dry_run'] },
  { method: 'POST', pattern: '/v2/reconciliations/:id/matches/batch', path: `/v2/reconciliations/${window.id}/matches/batch`, body: { matches: [{ ...matchBody, dry_run: false }], dry_run: true }, unknown: ['/matches/0/dry_run'] },
  { method: 'POST', pattern: '/v2/matching-rules', path: '/v2/matching-rules', body: { ...ruleBody, enabled: true }, unknown: ['/enabled'] },
  { method: 'POST', pattern: '/v2/matching-rules', path: '/v2/matching-rules', body: { ...ruleBody, conditions: { reference: { equals: 'x', ignore_case: true } } }, unknown: ['/conditions/reference/ignore_case'] },
  { method: 'PATCH', pattern: '/v2/matching-rules/:id', path: `/v2/matching-rules/${ruleId}`, body: { priority: 2, order: 1 }, unknown: ['/order'] },
  { method: 'POST', pattern: '/v2/reconciliations/:id/auto-match', path: `/v2/reconciliations/${window.id}/auto-match`, body: { dry_run: true, rules: [] }, unknown: ['/rules'] },
  { method: 'PATCH', pattern: '/v2/reconciliations/:id/lines/:line', path: `/v2/reconciliations/${window.id}/lines/l1`, body: { assignee: 'ann', owner: 'bob' }, unknown: ['/owner'] },
  { method: 'POST', pattern: '/v2/webhooks', path: '/v2/webhooks', body: { url: 'https://hooks.example.com/x', events: ['entry.posted'], secret: 's' }, unknown: ['/secret'] },
  { method: 'POST', pattern: '/admin/workspaces', path: '/admin/workspaces', body: { id: 'w2', timezone: 'UTC', plan: 'pro' }, unknown: ['/plan'], admin: true },
  { method: 'POST', pattern: '/admin/workspaces', path: '/admin/workspaces', body: { id: 'w2', timezone: 'UTC', limits: { writes_per_minute: 1, reads_per_minute: 1, bursts: 2 } }, unknown: ['/limits/bursts'], admin: true },
  { method: 'PATCH', pattern: '/admin/workspaces/:id', path: '/admin/workspaces/default', body: { limits: { writes_per_minute: 5, burst: 1 } }, unknown: ['/limits/burst'], admin: true },
  { method: 'PATCH', pattern: '/admin/workspaces/:id', path: '/admin/workspaces/default', body: { settings: { approvals: { write_off_over: 5, over: 1 } } }, unknown: ['/settings/approvals/over'], admin: true },
  // The body's schema answers before the approval is looked up: none need exist.
  { method: 'POST', pattern: '/v2/approvals/:id/reject', path: '/v2/approvals/apr_unknown/reject', body: { reason: 'no', note: 'x' }, unknown: ['/note'] },
  { method: 'POST', pattern: '/admin/keys', path: '/admin/keys', body: { workspace: 'default', scopes: ['recon:read'], expires: '2027-01-01' }, unknown: ['/expires'], admin: true },
]

/** Whether a body schema is JSON (an object); the statement file's is a string and has no fields. */
function takesJsonObject(schema: TSchema): boolean {
  return (schema as { type?: unknown }).type === 'object'
}

t.test('every route with a JSON body has a case here', async (t) => {
  const routes = [...v2Routes, ...adminRoutes].filter((route) => route.body !== undefined && takesJsonObject(route.body.validate.schema))
  const covered = new Set(cases.map((each) => `${each.method} ${each.pattern}`))
  for (const route of routes) t.ok(covered.has(`${route.method} ${route.pattern}`), `${route.method} ${route.pattern} is tried with an unknown field`)
  t.ok(routes.length >= 13, 'the route tables were read')
})

/** The paths of the objects under `schema` that let a field they do not name through (a map's value schema counts as naming them). */
function openObjects(schema: unknown, at: string): string[] {
  if (typeof schema !== 'object' || schema === null) return []
  const node = schema as { type?: unknown; properties?: Record<string, unknown>; additionalProperties?: unknown; items?: unknown; anyOf?: unknown[] }
  const open = node.type === 'object' && (node.additionalProperties === undefined || node.additionalProperties === true) ? [at] : []
  const below = [
    ...Object.entries(node.properties ?? {}).map(([name, each]) => openObjects(each, `${at}/${name}`)),
    openObjects(node.items, `${at}/*`),
    ...(node.anyOf ?? []).map((each) => openObjects(each, at)),
    openObjects(node.additionalProperties, `${at}/*`),
  ]
  return open.concat(...below)
}

t.test('every object of every body schema refuses fields it does not name, nested ones too', async (t) => {
  for (const route of [...v2Routes, ...adminRoutes]) {
    if (route.body === undefined) continue
    t.same(openObjects(route.body.validate.schema, ''), [], `${route.method} ${route.pattern}`)
  }
})

function send(each: Case): Promise<Reply> {
  return call(baseUrl, each.method, each.path, { key: each.admin ? adminToken : key, body: each.body })
}

/** A union (a counterparty object or null) also reports its object as not matching: that names no other field. */
function isAncestorOfUnknown(path: string, unknown: readonly string[]): boolean {
  return unknown.some((field) => field.startsWith(`${path}/`))
}

/** The system state, workspace `default`'s whole state and its log's end, wherever its shard is. */
async function stateText(): Promise<string> {
  return `${await systemState(service.service)}\n${await workspaceState(service.service, 'default')}\nlog ${await workspaceLastSeq(service.service, 'default')}`
}

t.test('an unknown field anywhere is 400 request_invalid naming it, and changes nothing', async (t) => {
  for (const each of cases) {
    const label = `${each.method} ${each.path} ${each.unknown.join(' ')}`
    const before = await stateText()
    const reply = await send(each)
    assertError(t, reply, 400, 'request_invalid', label)
    const paths = detailPaths(reply)
    t.same(paths.filter((path) => !isAncestorOfUnknown(path, each.unknown)), each.unknown, `${label}: details name the unknown field, and only it`)
    t.equal(paths[0], each.unknown[0], `${label}: first of all`)
    t.match(reply.body.error.message, each.unknown[0].split('/').at(-1) ?? '', `${label}: the message names it`)
    const after = await stateText()
    t.equal(after, before, `${label}: nothing changed${after === before ? '' : `: ${firstDifference(before, after)}`}`)
  }
})

t.test('a match batch item with dry_run is refused, not committed; the batch\'s own dry_run still works', async (t) => {
  const before = await readWindow(baseUrl, key, window.id)
  const path = `/v2/reconciliations/${window.id}/matches/batch`
  const item = await call(baseUrl, 'POST', path, { key, body: { matches: [{ ...matchBody, dry_run: true }] } })
  assertError(t, item, 400, 'request_invalid', 'dry_run on an item')
  t.same(await matchesOf(baseUrl, key, window.id), [], 'no match was stored')
  t.same(await readWindow(baseUrl, key, window.id), before, 'the window is as it was')
  const dry = await call(baseUrl, 'POST', path, { key, body: { matches: [matchBody], dry_run: true } })
  t.equal(dry.status, 200, 'dry_run on the batch is a what-if')
  t.equal(dry.body.dry_run, true)
  t.same(await matchesOf(baseUrl, key, window.id), [], 'and stores nothing')
  const real = await call(baseUrl, 'POST', path, { key, body: { matches: [matchBody] } })
  t.equal(real.status, 200, 'the same batch without the flag is committed')
  t.equal((await matchesOf(baseUrl, key, window.id)).length, 1)
})

t.test('metadata stays a free map: its keys are the client\'s, not unknown fields', async (t) => {
  const reply = await call(baseUrl, 'POST', '/v2/entries', { key, body: { ...entryBody, metadata: { anything: 'goes', order_id: '42' } } })
  t.equal(reply.status, 201, reply.text)
})

t.test('a CSV column the statement lines do not know is refused too', async (t) => {
  const before = await stateText()
  const reply = await call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/lines`, { key, raw: 'date,amount,currency\n2026-10-06,5,EUR\n', headers: { 'content-type': 'text/csv' } })
  assertError(t, reply, 400, 'request_invalid', 'CSV')
  t.match(reply.body.error.message, /unknown column currency/)
  t.equal(await stateText(), before, 'nothing changed')
})
