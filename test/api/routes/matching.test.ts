/**
 * Matching handlers (src/api/routes/matching.ts) called with a built context: a match or a batch becomes match.create /
 * match.batch (approvals and lock_closed as the workspace's settings say), a dry run the what-if read of the same command,
 * a dry run with an adjustment refused; what makes a request a read and how many write tokens a batch takes (before its
 * schema is checked, so any body); the proposals' parameters with their bounds.
 */
import t from 'tap'
import { matchingRoutes } from '../../../src/api/routes/matching.ts'
import { matchBatchItemsMax } from '../../../src/ledger/commands.ts'
import { dateToleranceDaysMax, maxGroupMax, maxGroupMin, proposalDefaults } from '../../../src/ledger/proposals.ts'
import { settingsDefault, type WorkspaceSettings } from '../../../src/ledger/system.ts'
import { envelope, handled, routeOf, workspaceRecord } from '../../support/route-context.ts'

const single = routeOf(matchingRoutes, 'POST', '/v2/reconciliations/:id/matches')
const batch = routeOf(matchingRoutes, 'POST', '/v2/reconciliations/:id/matches/batch')
const proposals = routeOf(matchingRoutes, 'GET', '/v2/reconciliations/:id/proposals')
const approving: WorkspaceSettings = { ...settingsDefault, approvals: { close_with_residual: false, write_off_over: 100 } }
const locking: WorkspaceSettings = { ...settingsDefault, lock_closed_periods: true }
const id = { id: 'rec_1' }

t.test('a dry run is a read only when dry_run is exactly true, whatever else the body is', async (t) => {
  for (const route of [single, batch]) {
    t.equal(route.isRead!({ dry_run: true }), true)
    for (const body of [{ dry_run: false }, { dry_run: 'true' }, { dry_run: 1 }, {}, null, undefined, 'dry_run', [true]]) {
      t.equal(route.isRead!(body), false, JSON.stringify(body))
    }
  }
})

t.test('a batch takes one write token per match, 1 to the batch limit, owed beyond the first', async (t) => {
  const tokens = batch.writeTokens!
  t.equal(tokens({ matches: [] }), 1, 'empty: still one')
  t.equal(tokens({ matches: [{}] }), 1)
  t.equal(tokens({ matches: new Array(7).fill({}) }), 7)
  t.equal(tokens({ matches: new Array(matchBatchItemsMax).fill(0) }), matchBatchItemsMax)
  t.equal(tokens({ matches: new Array(matchBatchItemsMax + 1).fill(0) }), matchBatchItemsMax, 'capped: the schema refuses it later')
  for (const body of [{ matches: 'x' }, { matches: { length: 50 } }, {}, null, 42]) t.equal(tokens(body), 1, JSON.stringify(body))
  t.equal(batch.writeTokensCharge, 'owe')
  t.equal(single.writeTokens, undefined, 'a single match: one token')
})

t.test('POST matches: match.create with entries [] and reason null by default; date_tolerance_days only when given', async (t) => {
  const command = handled(single, { params: id, body: { statement_lines: ['sl_1'], strategy: 'amount_and_date' } }) as Record<string, unknown>
  t.same(command, { ...envelope, type: 'match.create', window: 'rec_1', statement_lines: ['sl_1'], entries: [], strategy: 'amount_and_date', reason: null })
  t.notOk('date_tolerance_days' in command)
  t.notOk('approvals' in command, 'no approvals set: none carried')
  t.match(handled(single, { params: id, body: { statement_lines: ['sl_1'], entries: ['ent_1'], strategy: 'amount_and_date', date_tolerance_days: 0 } }), { date_tolerance_days: 0, entries: ['ent_1'] }, 'zero days is given, not absent')
  t.match(handled(single, { params: id, body: { statement_lines: ['sl_1'], strategy: 'write_off', reason: 'fee' }, workspace: workspaceRecord(approving) }), {
    strategy: 'write_off', reason: 'fee', approvals: approving.approvals,
  })
})

t.test('POST matches with dry_run: the what-if read of the command, without approvals', async (t) => {
  const body = { statement_lines: ['sl_1'], entries: ['ent_1'], strategy: 'manual', reason: 'x', dry_run: true }
  t.same(handled(single, { params: id, body, workspace: workspaceRecord(approving) }), {
    read: { name: 'match.what-if', params: { command: { ...envelope, type: 'match.create', window: 'rec_1', statement_lines: ['sl_1'], entries: ['ent_1'], strategy: 'manual', reason: 'x' } } },
  })
  t.match(handled(single, { params: id, body: { ...body, dry_run: false } }), { type: 'match.create' }, 'dry_run false: the write')
})

t.test('POST matches with an adjustment: posted (lock_closed, approvals as set); never in a dry run', async (t) => {
  const body = { statement_lines: ['sl_1'], strategy: 'write_off', reason: 'bank fee', adjustment: { account: 'expenses:fees' } }
  t.same(handled(single, { params: id, body }), {
    ...envelope, type: 'match.create', window: 'rec_1', statement_lines: ['sl_1'], entries: [], strategy: 'write_off', reason: 'bank fee',
    adjustment: { account: 'expenses:fees', description: null },
  })
  t.match(handled(single, { params: id, body: { ...body, adjustment: { account: 'expenses:fees', description: 'Fee' } }, workspace: workspaceRecord({ ...approving, lock_closed_periods: true }) }), {
    adjustment: { description: 'Fee' }, lock_closed: true, approvals: approving.approvals,
  })
  t.notOk('lock_closed' in (handled(single, { params: id, body: { statement_lines: ['sl_1'], strategy: 'manual' }, workspace: workspaceRecord(locking) }) as object), 'no adjustment: nothing posted, no lock to carry')
  t.match(handled(single, { params: id, body: { ...body, dry_run: true } }), { ok: false, code: 'request_invalid', details: [{ path: '/adjustment', message: 'not with dry_run' }] })
})

t.test('POST matches/batch: match.batch of every item in order, or its what-if read', async (t) => {
  const matches = [{ statement_lines: ['sl_1'], entries: ['ent_1'], strategy: 'manual' }, { statement_lines: ['sl_2'], strategy: 'write_off', reason: 'r', date_tolerance_days: 3 }]
  const items = [
    { statement_lines: ['sl_1'], entries: ['ent_1'], strategy: 'manual', reason: null },
    { statement_lines: ['sl_2'], entries: [], strategy: 'write_off', reason: 'r', date_tolerance_days: 3 },
  ]
  t.same(handled(batch, { params: id, body: { matches } }), { ...envelope, type: 'match.batch', window: 'rec_1', matches: items })
  t.same(handled(batch, { params: id, body: { matches }, workspace: workspaceRecord(approving) }), { ...envelope, type: 'match.batch', window: 'rec_1', matches: items, approvals: approving.approvals })
  t.same(handled(batch, { params: id, body: { matches, dry_run: true }, workspace: workspaceRecord(approving) }), {
    read: { name: 'match.batch.what-if', params: { command: { ...envelope, type: 'match.batch', window: 'rec_1', matches: items } } },
  })
})

t.test('GET proposals: its parameters\' defaults and bounds, and the read', async (t) => {
  const parse = (text: string) => Object.fromEntries(proposals.query!.map((param) => [param.name, param.parse(new URLSearchParams(text))]))
  t.match(parse(''), { date_tolerance_days: { ok: true, value: proposalDefaults.dateToleranceDays }, max_group: { ok: true, value: proposalDefaults.maxGroup } })
  t.match(parse(`date_tolerance_days=0&max_group=${maxGroupMin}`), { date_tolerance_days: { value: 0 }, max_group: { value: maxGroupMin } })
  t.match(parse(`date_tolerance_days=${dateToleranceDaysMax}&max_group=${maxGroupMax}`), { date_tolerance_days: { value: dateToleranceDaysMax }, max_group: { value: maxGroupMax } })
  t.match(parse(`date_tolerance_days=${dateToleranceDaysMax + 1}&max_group=${maxGroupMax + 1}`), { date_tolerance_days: { ok: false }, max_group: { ok: false } })
  t.match(parse(`date_tolerance_days=-1&max_group=${maxGroupMin - 1}`), { date_tolerance_days: { ok: false }, max_group: { ok: false } })
  t.same(handled(proposals, { params: id, query: { date_tolerance_days: 2, max_group: 3, limit: 10, cursor: null } }), {
    read: { name: 'proposals', params: { window: 'rec_1', dateToleranceDays: 2, maxGroup: 3, limit: 10, cursor: null } },
  })
  t.same(handled(routeOf(matchingRoutes, 'GET', '/v2/reconciliations/:id/entries'), { params: id, query: { limit: 5, status: 'matched', cursor: 'c' } }), {
    read: { name: 'window.entries', params: { window: 'rec_1', status: 'matched', limit: 5, cursor: 'c' } },
  })
})
