/**
 * Query-string parameters (src/api/query.ts): each parameter's accepted values, its default when absent, and its
 * request_invalid naming the parameter; percent-encodings that are not UTF-8 refused before anything reads them;
 * each declared parameter's schema saying the bounds its parser applies; a page's limit checked before its cursor.
 */
import t from 'tap'
import { cursorQuery, enumQuery, integerQuery, limitQuery, queryEncodingProblem, queryValuesOf, textQuery, timestampQuery } from '../../src/api/query.ts'
import { pageLimitDefault, pageLimitMax } from '../../src/ledger/pages.ts'

const q = (text: string) => new URLSearchParams(text)

t.test('limit: the default when absent, 1..max as decimal digits only', async (t) => {
  t.same(limitQuery.parse(q('')), { ok: true, value: pageLimitDefault })
  t.same(limitQuery.parse(q('limit=1')), { ok: true, value: 1 })
  t.same(limitQuery.parse(q(`limit=${pageLimitMax}`)), { ok: true, value: pageLimitMax })
  t.same(limitQuery.parse(q('limit=007')), { ok: true, value: 7 })
  for (const bad of ['0', String(pageLimitMax + 1), '-1', '1.5', '1e2', ' 5', '0x10', '', 'ten']) {
    t.same(limitQuery.parse(q(`limit=${encodeURIComponent(bad)}`)), {
      ok: false, code: 'request_invalid', message: `Query parameter limit: must be an integer from 1 to ${pageLimitMax}.`,
      details: [{ path: '/limit', message: `must be an integer from 1 to ${pageLimitMax}` }],
    }, JSON.stringify(bad))
  }
})

t.test('integer: the fallback when absent, min..max, at most 16 digits', async (t) => {
  t.same(integerQuery('n', 0, 100, 42, 'n').parse(q('')), { ok: true, value: 42 })
  t.same(integerQuery('n', 0, 100, 42, 'n').parse(q('n=0')), { ok: true, value: 0 })
  t.same(integerQuery('n', 0, 100, 42, 'n').parse(q('n=100')), { ok: true, value: 100 })
  t.match(integerQuery('n', 0, 100, 42, 'n').parse(q('n=101')), { ok: false, message: 'Query parameter n: must be an integer from 0 to 100.' })
  t.match(integerQuery('n', 10, 100, 42, 'n').parse(q('n=5')), { ok: false })
  t.match(integerQuery('n', 0, Number.MAX_SAFE_INTEGER, 1, 'n').parse(q(`n=${'1'.repeat(17)}`)), { ok: false }, '17 digits')
  t.same(integerQuery('n', 0, Number.MAX_SAFE_INTEGER, 1, 'n').parse(q('n=9007199254740991')), { ok: true, value: Number.MAX_SAFE_INTEGER })
})

t.test('timestamps: RFC 3339 with a zone, as epoch ms; null when absent', async (t) => {
  t.same(timestampQuery('from', 'from').parse(q('')), { ok: true, value: null })
  t.same(timestampQuery('from', 'from').parse(q('from=2026-03-10T09:00:00Z')), { ok: true, value: Date.UTC(2026, 2, 10, 9) })
  t.same(timestampQuery('from', 'from').parse(q('from=2026-03-10T09:00:00.250%2B01:00')), { ok: true, value: Date.UTC(2026, 2, 10, 8, 0, 0, 250) })
  for (const bad of ['2026-03-10', '2026-03-10T09:00:00', 'yesterday', '2026-02-30T00:00:00Z']) {
    t.match(timestampQuery('to', 'to').parse(q(`to=${encodeURIComponent(bad)}`)), { ok: false, details: [{ path: '/to', message: 'must be an RFC 3339 timestamp' }] }, bad)
  }
})

t.test('text: 1..lengthMax characters; enum: one of the values, exactly', async (t) => {
  t.same(textQuery('account', 'account').parse(q('')), { ok: true, value: null })
  t.same(textQuery('account', 'account').parse(q('account=assets%3Abank')), { ok: true, value: 'assets:bank' })
  t.match(textQuery('account', 'account').parse(q('account=')), { ok: false, message: 'Query parameter account: must be 1 to 256 characters.' })
  t.same(textQuery('c', 'c', 10).parse(q(`c=${'x'.repeat(10)}`)), { ok: true, value: 'x'.repeat(10) })
  t.match(textQuery('c', 'c', 10).parse(q(`c=${'x'.repeat(11)}`)), { ok: false })
  t.same(enumQuery('state', ['open', 'closed'], 'state').parse(q('state=open')), { ok: true, value: 'open' })
  t.same(enumQuery('state', ['open', 'closed'], 'state').parse(q('')), { ok: true, value: null })
  t.match(enumQuery('state', ['open', 'closed'], 'state').parse(q('state=OPEN')), { ok: false, message: 'Query parameter state: must be one of open, closed.' })
})

t.test('percent-encodings that are not UTF-8 are refused naming the parameter; a stray % stays literal', async (t) => {
  t.equal(queryEncodingProblem('account=assets:bank&limit=5'), null)
  t.equal(queryEncodingProblem('q=%E2%9C%93&r=caf%C3%A9'), null, 'UTF-8')
  t.equal(queryEncodingProblem('q=100%&r=%zz&s=%2'), null, 'not an encoding: literal')
  t.equal(queryEncodingProblem('q=a+b'), null)
  t.match(queryEncodingProblem('limit=5&account=%FC'), { ok: false, code: 'request_invalid', details: [{ path: '/account' }] }, 'Latin-1')
  t.match(queryEncodingProblem('account=%ED%A0%80'), { ok: false, details: [{ path: '/account' }] }, 'an encoded surrogate')
  t.match(queryEncodingProblem('%FF=1'), { ok: false, details: [{ path: '/query' }] }, 'a name that is not UTF-8 is called query')
  t.match(queryEncodingProblem('acc%6Funt=%C3'), { ok: false, details: [{ path: '/account' }] }, 'the name decoded for the message')
})

t.test('each declared parameter\'s schema says what its parser accepts', async (t) => {
  t.match(limitQuery.schema, { type: 'integer', minimum: 1, maximum: pageLimitMax, default: pageLimitDefault })
  const count = integerQuery('count', 2, 9, 3, 'how many')
  t.match(count.schema, { type: 'integer', minimum: 2, maximum: 9, default: 3 })
  t.same(count.parse(q('')), { ok: true, value: 3 })
  t.match(count.parse(q('count=10')), { ok: false })
  const cursor = cursorQuery(40)
  t.match(cursor.schema, { type: 'string', minLength: 1, maxLength: 40 })
  t.equal(cursor.name, 'cursor')
  t.match(cursor.parse(q(`cursor=${'c'.repeat(41)}`)), { ok: false, details: [{ path: '/cursor' }] })
  t.match(textQuery('memo', 'a memo', 5).schema, { type: 'string', minLength: 1, maxLength: 5 })
  t.match(timestampQuery('from', 'From').schema, { type: 'string', format: 'date-time' })
  t.equal(timestampQuery('from', 'From').description, 'From (RFC 3339)')
  const state = enumQuery('state', ['open', 'closed'], 'state')
  t.same(state.parse(q('state=closed')), { ok: true, value: 'closed' })
  t.same((state.schema as { enum?: string[] }).enum, ['open', 'closed'])
})

t.test('the query stage: declared parameters in order (limit, then cursor), the first bad one answering; others ignored', async (t) => {
  const cursor = cursorQuery(10)
  t.same(queryValuesOf([limitQuery, cursor], 'cursor=abc&limit=3&utm_source=x'), { ok: true, value: { limit: 3, cursor: 'abc' } })
  t.match(queryValuesOf([], 'x=%FC'), { ok: false, code: 'request_invalid' }, 'not UTF-8: refused even when nothing is declared')
  t.same(queryValuesOf([], 'x=1'), { ok: true, value: {} })
  t.same(queryValuesOf([limitQuery, cursor], ''), { ok: true, value: { limit: pageLimitDefault, cursor: null } })
  t.match(queryValuesOf([limitQuery, cursor], `limit=0&cursor=${'x'.repeat(11)}`), { ok: false, details: [{ path: '/limit' }] })
  t.match(queryValuesOf([limitQuery, cursor], `limit=2&cursor=${'x'.repeat(11)}`), { ok: false, details: [{ path: '/cursor' }] })
})
