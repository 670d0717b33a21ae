/**
 * /v2/entries handlers (src/api/routes/entries.ts) called with a built context: a posting becomes entry.post with its
 * fields written out (the envelope's idempotency only when the request had a key; lock_closed only when the workspace
 * locks closed periods), a reversal entry.reverse, the reads their named queries; zero amounts and bad timestamps refused.
 */
import t from 'tap'
import { entryRoutes } from '../../../src/api/routes/entries.ts'
import { entryRulesVersion } from '../../../src/ledger/commands.ts'
import { settingsDefault } from '../../../src/ledger/system.ts'
import { envelope, envelopeKeyed, handled, routeOf, workspaceRecord } from '../../support/route-context.ts'

const post = routeOf(entryRoutes, 'POST', '/v2/entries')
const reverse = routeOf(entryRoutes, 'POST', '/v2/entries/:id/reverse')
const locking = workspaceRecord({ ...settingsDefault, lock_closed_periods: true })
const lines = [{ account: 'assets:bank', amount: 1500 }, { account: 'income:sales', amount: -1500 }]

t.test('POST /v2/entries: entry.post with every field, defaults null, no idempotency without a key', async (t) => {
  const command = handled(post, { body: { lines } }) as Record<string, unknown>
  t.same(command, {
    ...envelope, type: 'entry.post', lines, effective_at_ms: null, description: null, rules: entryRulesVersion, metadata: null,
  })
  t.notOk('idempotency' in command, 'no idempotency field at all')
  t.notOk('lock_closed' in command)
})

t.test('POST /v2/entries: the key, the given fields, an offset timestamp read as UTC ms, lock_closed from the settings', async (t) => {
  const body = { lines, effective_at: '2026-03-08T01:30:00-05:00', description: 'Sale', metadata: { order: '42' } }
  t.same(handled(post, { body, envelope: envelopeKeyed, workspace: locking }), {
    ...envelopeKeyed, type: 'entry.post', lines, effective_at_ms: Date.UTC(2026, 2, 8, 6, 30), description: 'Sale',
    rules: entryRulesVersion, metadata: { order: '42' }, lock_closed: true,
  })
})

t.test('POST /v2/entries: a zero amount and a timestamp that is not RFC 3339 are refused, naming the field', async (t) => {
  t.match(handled(post, { body: { lines: [{ account: 'a', amount: 0 }, { account: 'b', amount: 0 }] } }), {
    ok: false, code: 'request_invalid', details: [{ path: '/lines/0/amount' }, { path: '/lines/1/amount' }],
  })
  for (const bad of ['2026-03-08', '2026-02-29T00:00:00Z', '2026-03-08T01:30:00', 'now', '']) {
    t.match(handled(post, { body: { lines, effective_at: bad } }), { ok: false, code: 'request_invalid', details: [{ path: '/effective_at' }] }, bad)
  }
})

t.test('POST /v2/entries/:id/reverse: entry.reverse of the path id; defaults null; bad timestamp refused', async (t) => {
  t.same(handled(reverse, { params: { id: 'ent_9' }, body: {} }), { ...envelope, type: 'entry.reverse', entry: 'ent_9', effective_at_ms: null, description: null })
  t.same(handled(reverse, { params: { id: 'ent_9' }, body: { effective_at: '2026-10-25T01:30:00+01:00', description: 'oops' }, workspace: locking }), {
    ...envelope, type: 'entry.reverse', entry: 'ent_9', effective_at_ms: Date.UTC(2026, 9, 25, 0, 30), description: 'oops', lock_closed: true,
  })
  t.match(handled(reverse, { params: { id: 'ent_9' }, body: { effective_at: 'tomorrow' } }), { ok: false, code: 'request_invalid', details: [{ path: '/effective_at' }] })
})

t.test('GET /v2/entries/:id and GET /v2/entries: the named reads with the query values as given', async (t) => {
  t.same(handled(routeOf(entryRoutes, 'GET', '/v2/entries/:id'), { params: { id: 'ent_3' } }), { read: { name: 'entry.get', params: { entry: 'ent_3' } } })
  const list = routeOf(entryRoutes, 'GET', '/v2/entries')
  t.same(handled(list, { query: { account: null, reconciliation: null, from: null, to: null, limit: 50, cursor: null } }), {
    read: { name: 'entry.list', params: { account: null, reconciliation: null, fromMs: null, toMs: null, limit: 50, cursor: null } },
  })
  t.same(handled(list, { query: { account: 'assets:bank', reconciliation: 'rec_1', from: 1000, to: 2000, limit: 1, cursor: 'c1' } }), {
    read: { name: 'entry.list', params: { account: 'assets:bank', reconciliation: 'rec_1', fromMs: 1000, toMs: 2000, limit: 1, cursor: 'c1' } },
  })
  t.same(list.query?.map((param) => param.name), ['limit', 'account', 'reconciliation', 'cursor', 'from', 'to'], 'the parameters it reads')
})
