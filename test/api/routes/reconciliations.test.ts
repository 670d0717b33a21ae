/**
 * /v2/reconciliations handlers (src/api/routes/reconciliations.ts) called with a built context: window.open with its
 * defaults and the workspace's time zone spelled canonically; a transition's own refusals (abandon without a reason,
 * lock_period without close) and approvals only on a close; statement lines from JSON (zero amounts refused) or from a
 * statement file (empty refused; kept outside the period, with the file's accounts); the reads and match.reverse.
 */
import t from 'tap'
import { StatementsRead } from '../../../src/api/statement-file.ts'
import { reconciliationRoutes } from '../../../src/api/routes/reconciliations.ts'
import { settingsDefault, type WorkspaceSettings } from '../../../src/ledger/system.ts'
import type { Statement } from '../../../src/statements/types.ts'
import { envelope, handled, keyRecord, routeOf, workspaceRecord } from '../../support/route-context.ts'

const open = routeOf(reconciliationRoutes, 'POST', '/v2/reconciliations')
const transition = routeOf(reconciliationRoutes, 'PATCH', '/v2/reconciliations/:id')
const addLines = routeOf(reconciliationRoutes, 'POST', '/v2/reconciliations/:id/lines')
const approving: WorkspaceSettings = { ...settingsDefault, approvals: { close_with_residual: true, write_off_over: null } }
const openBody = { label: 'March', accounts: ['assets:bank'], window: { from: '2026-03-01', to: '2026-03-31' }, claimed_movement: 0 }

t.test('POST /v2/reconciliations: window.open, absent figures null, tolerance 0, the workspace\'s zone canonical', async (t) => {
  t.same(handled(open, { body: openBody, workspace: workspaceRecord(settingsDefault, 'europe/paris') }), {
    ...envelope, type: 'window.open', label: 'March', accounts: ['assets:bank'], from: '2026-03-01', to: '2026-03-31', claimed_movement: 0,
    opening_balance: null, closing_balance: null, statement_ref: null, tolerance: 0, time_zone: 'Europe/Paris',
  })
  const full = { ...openBody, claimed_movement: -250, opening_balance: 0, closing_balance: -250, statement_ref: 'st-3', tolerance: 5 }
  t.match(handled(open, { body: full, workspace: workspaceRecord(settingsDefault, 'America/New_York') }), {
    claimed_movement: -250, opening_balance: 0, closing_balance: -250, statement_ref: 'st-3', tolerance: 5, time_zone: 'America/New_York',
  })
  t.match(handled(open, { body: openBody, workspace: workspaceRecord(settingsDefault, 'Not/AZone') }), { time_zone: 'Not/AZone' }, 'a name Intl does not know stays as it is')
})

t.test('PATCH /v2/reconciliations/:id: abandon needs a reason; lock_period only with closed; both refused before anything', async (t) => {
  for (const reason of [undefined, null, '']) {
    const body = reason === undefined ? { state: 'abandoned' } : { state: 'abandoned', reason }
    t.match(handled(transition, { params: { id: 'rec_1' }, body }), { ok: false, code: 'request_invalid', details: [{ path: '/reason' }] }, String(reason))
  }
  t.match(handled(transition, { params: { id: 'rec_1' }, body: { state: 'abandoned', reason: 'dup', lock_period: true } }), { ok: false, code: 'request_invalid', details: [{ path: '/lock_period' }] })
  t.match(handled(transition, { params: { id: 'rec_1' }, body: { state: 'open', lock_period: true } }), { ok: false, details: [{ path: '/lock_period' }] })
})

t.test('PATCH /v2/reconciliations/:id: window.transition with the key\'s name; lock_period and approvals on a close only', async (t) => {
  const plain = handled(transition, { params: { id: 'rec_1' }, body: { state: 'closed' } }) as Record<string, unknown>
  t.same(plain, { ...envelope, type: 'window.transition', window: 'rec_1', state: 'closed', reason: null, key_name: keyRecord.name })
  t.notOk('lock_period' in plain)
  t.notOk('lock_period' in (handled(transition, { params: { id: 'rec_1' }, body: { state: 'closed', lock_period: false } }) as object), 'false: no lock')
  t.same(handled(transition, { params: { id: 'rec_1' }, body: { state: 'closed', lock_period: true }, workspace: workspaceRecord(approving) }), {
    ...envelope, type: 'window.transition', window: 'rec_1', state: 'closed', reason: null, key_name: 'ops', lock_period: true, approvals: approving.approvals,
  })
  const abandoned = handled(transition, { params: { id: 'rec_1' }, body: { state: 'abandoned', reason: 'duplicate' }, workspace: workspaceRecord(approving) }) as Record<string, unknown>
  t.equal(abandoned.reason, 'duplicate')
  t.notOk('approvals' in abandoned, 'an abandon waits for no approval')
  t.notOk('approvals' in (handled(transition, { params: { id: 'rec_1' }, body: { state: 'open' }, workspace: workspaceRecord(approving) }) as object), 'nor a state the ledger refuses')
  t.notOk('approvals' in (handled(transition, { params: { id: 'rec_1' }, body: { state: 'closed' } }) as object), 'no approvals set: none carried')
})

t.test('POST lines as JSON: optional fields null, a counterparty filled out; a zero amount refused', async (t) => {
  const body = {
    lines: [
      { amount: 100, date: '2026-03-02' },
      { amount: -40, date: '2026-03-03', reference: 'r', description: 'd', value_date: '2026-03-04', counterparty: { name: 'ACME' } },
      { amount: 1, date: '2026-03-05', counterparty: null },
    ],
  }
  t.same(handled(addLines, { params: { id: 'rec_1' }, body }), {
    ...envelope, type: 'window.lines.add', window: 'rec_1', lines: [
      { amount: 100, date: '2026-03-02', reference: null, description: null, value_date: null, counterparty: null },
      { amount: -40, date: '2026-03-03', reference: 'r', description: 'd', value_date: '2026-03-04', counterparty: { name: 'ACME', account: null } },
      { amount: 1, date: '2026-03-05', reference: null, description: null, value_date: null, counterparty: null },
    ],
  })
  t.match(handled(addLines, { params: { id: 'rec_1' }, body: { lines: [{ amount: 5, date: '2026-03-02' }, { amount: 0, date: '2026-03-02' }] } }), {
    ok: false, code: 'request_invalid', details: [{ path: '/lines/1/amount' }],
  })
})

t.test('POST lines as CSV: the route\'s parser gives the JSON shape', async (t) => {
  const parsed = addLines.body!.parse!(Buffer.from('date,amount,reference\n2026-03-02,150,abc\n'), 'text/csv', new URLSearchParams())
  t.match(parsed, { ok: true, value: { lines: [{ date: '2026-03-02', amount: 150, reference: 'abc' }] } })
})

const statement = (account: string, amounts: number[]): Statement => ({
  format: 'camt053', statement_ref: 's1', account, currency: 'EUR', opening: { amount: 0, date: '2026-03-01' }, closing: { amount: 0, date: '2026-03-31' },
  period: { from: '2026-03-01', to: '2026-03-31' },
  entries: amounts.map((amount, index) => ({
    amount, mark: amount < 0 ? 'debit' : 'credit', reversal: false, date: `2026-03-0${index + 1}`, value_date: null, reference: `ref${index}`, description: null, counterparty: null,
  })),
}) as Statement

t.test('POST lines as a statement file: every statement\'s lines, kept outside the window, with the accounts; none refused', async (t) => {
  const file = new StatementsRead([statement('DE01', [10, -3]), statement('DE02', [7])])
  t.same(addLines.handle({ ...contextOfFile(file) }), {
    ...envelope, type: 'window.lines.add', window: 'rec_1', keep_outside: true,
    lines: [
      { amount: 10, date: '2026-03-01', value_date: null, reference: 'ref0', description: null, counterparty: null },
      { amount: -3, date: '2026-03-02', value_date: null, reference: 'ref1', description: null, counterparty: null },
      { amount: 7, date: '2026-03-01', value_date: null, reference: 'ref0', description: null, counterparty: null },
    ],
    statements: [{ account: 'DE01', currency: 'EUR' }, { account: 'DE02', currency: 'EUR' }],
  })
  t.match(addLines.handle(contextOfFile(new StatementsRead([statement('DE01', [])]))), { ok: false, code: 'request_invalid', details: [{ path: '/lines', message: 'empty' }] })
  t.match(addLines.handle(contextOfFile(new StatementsRead([]))), { ok: false, code: 'request_invalid' })
  t.equal(addLines.body!.validate(file).ok, true, 'the validator lets a file through as it is')
})

function contextOfFile(file: StatementsRead) {
  return { params: { id: 'rec_1' }, query: { format: null }, body: file, key: keyRecord, workspace: workspaceRecord(), atMs: envelope.at_ms, envelope }
}

t.test('the reads and DELETE of a match', async (t) => {
  const id = { id: 'rec_1' }
  t.same(handled(routeOf(reconciliationRoutes, 'GET', '/v2/reconciliations'), { query: { limit: 10, state: 'open', account: null, cursor: null } }), {
    read: { name: 'window.list', params: { state: 'open', account: null, limit: 10, cursor: null } },
  })
  t.same(handled(routeOf(reconciliationRoutes, 'GET', '/v2/reconciliations/:id'), { params: id }), { read: { name: 'window.get', params: { window: 'rec_1' } } })
  t.same(handled(routeOf(reconciliationRoutes, 'GET', '/v2/reconciliations/:id/lines'), { params: id, query: { limit: 3, status: 'unmatched', cursor: 'c' } }), {
    read: { name: 'window.lines', params: { window: 'rec_1', status: 'unmatched', limit: 3, cursor: 'c' } },
  })
  t.same(handled(routeOf(reconciliationRoutes, 'GET', '/v2/reconciliations/:id/matches'), { params: id, query: { limit: 3, cursor: null } }), {
    read: { name: 'window.matches', params: { window: 'rec_1', limit: 3, cursor: null } },
  })
  t.same(handled(routeOf(reconciliationRoutes, 'GET', '/v2/reconciliations/:id/history'), { params: id, query: { limit: 3, cursor: null } }), {
    read: { name: 'window.history', params: { window: 'rec_1', limit: 3, cursor: null } },
  })
  t.same(handled(routeOf(reconciliationRoutes, 'DELETE', '/v2/reconciliations/:id/matches/:match_id'), { params: { id: 'rec_1', match_id: 'mat_2' } }), {
    ...envelope, type: 'match.reverse', window: 'rec_1', match: 'mat_2',
  })
})
