/**
 * The exceptions queue's handlers (src/api/routes/exceptions.ts) called with a built context: the list's query
 * (older_than_days absent means no age filter, else a whole number from 0 to 36,500; assignee at most 200
 * characters; cursor at most 1,024) and its exception.list read with the request's clock; a line's annotation as
 * window.line.annotate carrying only the fields sent (null clears, absent leaves), an empty body refused.
 */
import t from 'tap'
import { queryValuesOf } from '../../../src/api/query.ts'
import { exceptionRoutes } from '../../../src/api/routes/exceptions.ts'
import { exceptionAgeDaysMax, lineAssigneeLengthMax, lineNoteLengthMax } from '../../../src/ledger/exceptions.ts'
import { pageLimitDefault } from '../../../src/ledger/pages.ts'
import { atMs, envelope, handled, routeOf } from '../../support/route-context.ts'

const list = routeOf(exceptionRoutes, 'GET', '/v2/exceptions')
const annotate = routeOf(exceptionRoutes, 'PATCH', '/v2/reconciliations/:id/lines/:line')
const declared = list.query ?? []

t.test('GET /v2/exceptions: the defaults, and older_than_days a whole number of days from 0 to 36,500', async (t) => {
  t.same(queryValuesOf(declared, ''), { ok: true, value: { account: null, older_than_days: null, assignee: null, limit: pageLimitDefault, cursor: null } }, 'absent: no age filter at all')
  for (const days of [0, 1, 30, exceptionAgeDaysMax]) t.match(queryValuesOf(declared, `older_than_days=${days}`), { ok: true, value: { older_than_days: days } }, String(days))
  t.match(queryValuesOf(declared, 'older_than_days=007'), { ok: true, value: { older_than_days: 7 } }, 'leading zeros are digits')
  for (const bad of [String(exceptionAgeDaysMax + 1), '-1', '1.5', '1e3', '', 'ten', '1234567', ' 5']) {
    t.match(queryValuesOf(declared, `older_than_days=${encodeURIComponent(bad)}`), {
      ok: false, code: 'request_invalid', details: [{ path: '/older_than_days', message: `must be an integer from 0 to ${exceptionAgeDaysMax}` }],
    }, JSON.stringify(bad))
  }
})

t.test('GET /v2/exceptions: assignee up to 200 characters, cursor up to 1,024, the first bad parameter answers', async (t) => {
  const longest = 'a'.repeat(lineAssigneeLengthMax)
  t.match(queryValuesOf(declared, `assignee=${longest}`), { ok: true, value: { assignee: longest } })
  t.match(queryValuesOf(declared, `assignee=${longest}a`), { ok: false, details: [{ path: '/assignee' }] })
  t.match(queryValuesOf(declared, `cursor=${'c'.repeat(1024)}`), { ok: true })
  t.match(queryValuesOf(declared, `cursor=${'c'.repeat(1025)}`), { ok: false, details: [{ path: '/cursor' }] })
  t.match(queryValuesOf(declared, 'cursor=&older_than_days=x&account=assets:bank'), { ok: false, details: [{ path: '/older_than_days' }] }, 'in declaration order')
})

t.test('GET /v2/exceptions: exception.list with the values and the request\'s clock as now', async (t) => {
  t.same(handled(list, { query: { account: 'assets:bank', older_than_days: 0, assignee: 'ana', limit: 5, cursor: 'c9' } }), {
    read: { name: 'exception.list', params: { account: 'assets:bank', olderThanDays: 0, assignee: 'ana', limit: 5, cursor: 'c9', nowMs: atMs } },
  })
  t.same(handled(list, { query: { account: null, older_than_days: null, assignee: null, limit: pageLimitDefault, cursor: null } }), {
    read: { name: 'exception.list', params: { account: null, olderThanDays: null, assignee: null, limit: pageLimitDefault, cursor: null, nowMs: atMs } },
  })
})

t.test('PATCH a line: window.line.annotate with only the fields sent; null clears; an empty body refused', async (t) => {
  const params = { id: 'rec_1', line: 'stl_2' }
  const base = { ...envelope, type: 'window.line.annotate', window: 'rec_1', line: 'stl_2' }
  t.same(handled(annotate, { params, body: { assignee: 'ana', note: 'call the bank' } }), { ...base, assignee: 'ana', note: 'call the bank' })
  const assigneeOnly = handled(annotate, { params, body: { assignee: 'ana' } }) as Record<string, unknown>
  t.same(assigneeOnly, { ...base, assignee: 'ana' })
  t.notOk('note' in assigneeOnly, 'absent: the note is left as it is')
  const cleared = handled(annotate, { params, body: { note: null } }) as Record<string, unknown>
  t.same(cleared, { ...base, note: null })
  t.notOk('assignee' in cleared)
  const validate = annotate.body!.validate
  t.match(validate({}), { ok: false, code: 'request_invalid' }, 'nothing to change')
  t.match(validate({ assignee: '' }), { ok: false, code: 'request_invalid' }, 'an empty assignee (null clears)')
  t.match(validate({ note: 'n'.repeat(lineNoteLengthMax) }), { ok: true })
  t.match(validate({ note: 'n'.repeat(lineNoteLengthMax + 1) }), { ok: false, code: 'request_invalid' })
  t.same([list.scope, annotate.scope], ['recon:read', 'recon:write'])
})
