/**
 * /v2/approvals handlers (src/api/routes/approvals.ts) called with a built context: the list reads approval.list with
 * its state filter (one of the four states, else refused naming /state) and a cursor of at most 256 characters;
 * approve becomes approval.decide with the key's name and lock_closed as the workspace locks; reject carries its
 * reason (an empty one refused by the route's body) and no lock_closed; reads need recon:read, decisions recon:approve.
 */
import t from 'tap'
import { approvalRoutes } from '../../../src/api/routes/approvals.ts'
import { queryValuesOf } from '../../../src/api/query.ts'
import { approvalReasonLengthMax } from '../../../src/ledger/approvals.ts'
import { pageLimitDefault } from '../../../src/ledger/pages.ts'
import { settingsDefault } from '../../../src/ledger/system.ts'
import { envelope, envelopeKeyed, handled, keyRecord, routeOf, workspaceRecord } from '../../support/route-context.ts'

const list = routeOf(approvalRoutes, 'GET', '/v2/approvals')
const get = routeOf(approvalRoutes, 'GET', '/v2/approvals/:id')
const approve = routeOf(approvalRoutes, 'POST', '/v2/approvals/:id/approve')
const reject = routeOf(approvalRoutes, 'POST', '/v2/approvals/:id/reject')
const locking = workspaceRecord({ ...settingsDefault, lock_closed_periods: true })

t.test('GET /v2/approvals: the query read by its parameters (defaults, a state, a cursor), then approval.list', async (t) => {
  const declared = list.query ?? []
  t.same(queryValuesOf(declared, ''), { ok: true, value: { limit: pageLimitDefault, state: null, cursor: null } })
  for (const state of ['pending', 'approved', 'rejected', 'failed']) {
    t.match(queryValuesOf(declared, `state=${state}`), { ok: true, value: { state } }, state)
  }
  for (const state of ['open', 'PENDING', '']) {
    t.match(queryValuesOf(declared, `state=${state}`), { ok: false, code: 'request_invalid', details: [{ path: '/state' }] }, `state=${state}`)
  }
  t.match(queryValuesOf(declared, `cursor=${'c'.repeat(256)}`), { ok: true, value: { cursor: 'c'.repeat(256) } }, '256 characters: the longest cursor')
  t.match(queryValuesOf(declared, `cursor=${'c'.repeat(257)}`), { ok: false, details: [{ path: '/cursor' }] }, 'one more refused')
  t.same(handled(list, { query: { limit: 7, state: 'pending', cursor: 'c1' } }), { read: { name: 'approval.list', params: { state: 'pending', limit: 7, cursor: 'c1' } } })
  t.same(handled(list, { query: { limit: pageLimitDefault, state: null, cursor: null } }), { read: { name: 'approval.list', params: { state: null, limit: pageLimitDefault, cursor: null } } })
})

t.test('GET /v2/approvals/:id: approval.get of the path id', async (t) => {
  t.same(handled(get, { params: { id: 'apr_4' } }), { read: { name: 'approval.get', params: { approval: 'apr_4' } } })
})

t.test('POST approve: approval.decide with the key\'s name and no reason; lock_closed only when the workspace locks', async (t) => {
  const plain = handled(approve, { params: { id: 'apr_4' } }) as Record<string, unknown>
  t.same(plain, { ...envelope, type: 'approval.decide', approval: 'apr_4', decision: 'approve', reason: null, key_name: keyRecord.name })
  t.notOk('lock_closed' in plain)
  t.same(handled(approve, { params: { id: 'apr_4' }, workspace: locking, envelope: envelopeKeyed, key: { ...keyRecord, name: null } }), {
    ...envelopeKeyed, type: 'approval.decide', approval: 'apr_4', decision: 'approve', reason: null, key_name: null, lock_closed: true,
  }, 'the action runs now, under the workspace\'s lock; a key without a name decides as null')
})

t.test('POST reject: approval.decide with the reason; never lock_closed (its action never runs); an empty reason refused', async (t) => {
  const rejected = handled(reject, { params: { id: 'apr_4' }, body: { reason: 'not ours' }, workspace: locking }) as Record<string, unknown>
  t.same(rejected, { ...envelope, type: 'approval.decide', approval: 'apr_4', decision: 'reject', reason: 'not ours', key_name: 'ops' })
  const validate = reject.body!.validate
  t.match(validate({ reason: '' }), { ok: false, code: 'request_invalid' }, 'empty')
  t.match(validate({}), { ok: false, code: 'request_invalid' }, 'absent')
  t.match(validate({ reason: 'r'.repeat(approvalReasonLengthMax) }), { ok: true }, 'the longest reason')
  t.match(validate({ reason: 'r'.repeat(approvalReasonLengthMax + 1) }), { ok: false, code: 'request_invalid' }, 'one character more')
  t.equal(approve.body, undefined, 'approve takes no body')
})

t.test('scopes and the operation\'s own errors: reads recon:read, decisions recon:approve', async (t) => {
  t.same(approvalRoutes.map((route) => `${route.method} ${route.pattern} ${route.scope}`), [
    'GET /v2/approvals recon:read', 'GET /v2/approvals/:id recon:read',
    'POST /v2/approvals/:id/approve recon:approve', 'POST /v2/approvals/:id/reject recon:approve',
  ])
  t.ok(approve.errors?.includes('period_locked'), 'an approve answers the action\'s own refusals')
  t.notOk(reject.errors?.includes('period_locked'), 'a reject runs no action')
})
