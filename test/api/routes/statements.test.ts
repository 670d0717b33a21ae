/**
 * POST /v2/statements (src/api/routes/statements.ts) called with a built context: its body is only ever a statement
 * file as the `parse` stage read it (anything else refused naming /); the query's auto_match is exactly `true` or
 * `false`; the handler builds statements.import with a window per statement (the label given, else the statement's
 * own), the workspace's time zone spelled canonically, and auto_match only when asked for with `true`.
 */
import t from 'tap'
import { queryValuesOf } from '../../../src/api/query.ts'
import { statementFileBody, statementRoutes } from '../../../src/api/routes/statements.ts'
import { StatementsRead } from '../../../src/api/statement-file.ts'
import { settingsDefault } from '../../../src/ledger/system.ts'
import type { Statement } from '../../../src/statements/types.ts'
import { contextOf, envelope, routeOf, workspaceRecord } from '../../support/route-context.ts'

const post = routeOf(statementRoutes, 'POST', '/v2/statements')

const statement = (account: string, ref: string, amounts: number[]): Statement => ({
  format: 'camt053', statement_ref: ref, account, currency: 'EUR', opening: { amount: 100, date: '2026-03-01' }, closing: { amount: 100 + amounts.reduce((a, b) => a + b, 0), date: '2026-03-31' },
  period: { from: '2026-03-01', to: '2026-03-31' },
  entries: amounts.map((amount, index) => ({
    amount, mark: amount < 0 ? 'debit' : 'credit', reversal: false, date: `2026-03-0${index + 1}`, value_date: null, reference: `ref${index}`, description: null, counterparty: null,
  })),
}) as Statement

const file = new StatementsRead([statement('DE01', 's1', [10, -3]), statement('DE02', 's2', [])])

async function built(query: Record<string, unknown>, timeZone = 'UTC'): Promise<Record<string, unknown>> {
  return await post.handle(contextOf({ body: file, query, workspace: workspaceRecord(settingsDefault, timeZone) })) as unknown as Record<string, unknown>
}

t.test('the body: a statement file as read by the parse stage, nothing else', async (t) => {
  t.same(statementFileBody(file), { ok: true, value: file })
  for (const other of [{ statements: file.statements }, 'bytes', Buffer.from('x'), null, undefined]) {
    t.match(statementFileBody(other), { ok: false, code: 'request_invalid', details: [{ path: '/', message: 'not a statement file' }] }, String(other))
  }
  t.same([post.body?.statementFile, post.body?.limit], ['every', 'import'], 'every body is a file, up to the import limit')
})

t.test('the query: auto_match exactly true or false; format and label read as declared', async (t) => {
  const declared = post.query ?? []
  t.same(queryValuesOf(declared, ''), { ok: true, value: { format: null, label: null, auto_match: null } })
  for (const value of ['true', 'false']) t.match(queryValuesOf(declared, `auto_match=${value}`), { ok: true, value: { auto_match: value } })
  for (const value of ['1', 'TRUE', 'yes', '']) t.match(queryValuesOf(declared, `auto_match=${value}`), { ok: false, details: [{ path: '/auto_match' }] }, value)
  t.match(queryValuesOf(declared, 'format=camt053&label=March'), { ok: true, value: { format: 'camt053', label: 'March' } })
  t.match(queryValuesOf(declared, 'format=xls'), { ok: false, details: [{ path: '/format' }] })
})

t.test('statements.import: a window per statement in file order, the statement\'s own label unless one is given', async (t) => {
  const command = await built({ format: null, label: null, auto_match: null })
  t.match(command, { ...envelope, type: 'statements.import', time_zone: 'UTC' })
  const statements = command.statements as Record<string, unknown>[]
  t.match(statements, [
    { account: 'DE01', currency: 'EUR', statement_ref: 's1', label: 's1 DE01', from: '2026-03-01', to: '2026-03-31', claimed_movement: 7, opening_balance: 100, closing_balance: 107 },
    { account: 'DE02', statement_ref: 's2', label: 's2 DE02', claimed_movement: 0, lines: [] },
  ])
  t.same(statements[0].lines, [
    { amount: 10, date: '2026-03-01', value_date: null, reference: 'ref0', description: null, counterparty: null },
    { amount: -3, date: '2026-03-02', value_date: null, reference: 'ref1', description: null, counterparty: null },
  ])
  t.notOk('auto_match' in command, 'not asked for: absent')
  const labelled = await built({ format: null, label: 'Q1', auto_match: null })
  t.same((labelled.statements as { label: string }[]).map((input) => input.label), ['Q1', 'Q1'], 'the label of every window the file opens')
})

t.test('statements.import: the workspace\'s time zone canonical; auto_match only with true', async (t) => {
  t.equal((await built({ format: null, label: null, auto_match: null }, 'america/new_york')).time_zone, 'America/New_York')
  t.equal((await built({ format: null, label: null, auto_match: null }, 'Not/AZone')).time_zone, 'Not/AZone', 'a name Intl does not know stays as it is')
  t.equal((await built({ format: null, label: null, auto_match: 'true' })).auto_match, true)
  t.notOk('auto_match' in await built({ format: null, label: null, auto_match: 'false' }), 'false: absent, as when not asked')
})
