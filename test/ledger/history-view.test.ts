/**
 * A window history event as every reader sees it (src/ledger/history-view.ts): type, RFC 3339 time in UTC with
 * milliseconds, key id, state, residual, then the event's own details as members of the same object.
 */
import t from 'tap'
import { historyView } from '../../src/ledger/history-view.ts'

t.test('the fixed members, then the details, in that order', async (t) => {
  const view = historyView({ type: 'closed', atMs: Date.UTC(2026, 2, 31, 22, 0, 0, 5), keyId: 'key_abcdef01234567', state: 'closed', residual: -250, detail: { reason: 'done', seal: 'ab' } })
  t.same(view, { type: 'closed', at: '2026-03-31T22:00:00.005Z', key_id: 'key_abcdef01234567', state: 'closed', residual: -250, reason: 'done', seal: 'ab' })
  t.same(Object.keys(view), ['type', 'at', 'key_id', 'state', 'residual', 'reason', 'seal'])
  t.equal(JSON.stringify(view), '{"type":"closed","at":"2026-03-31T22:00:00.005Z","key_id":"key_abcdef01234567","state":"closed","residual":-250,"reason":"done","seal":"ab"}', 'the text the seal and the exports hash and print')
})

t.test('no details: the fixed members only; times before 1970 and at the edges of year 9999', async (t) => {
  t.same(historyView({ type: 'opened', atMs: 0, keyId: 'k', state: 'open', residual: 0, detail: {} }), { type: 'opened', at: '1970-01-01T00:00:00.000Z', key_id: 'k', state: 'open', residual: 0 })
  t.equal((historyView({ type: 'x', atMs: -1, keyId: 'k', state: 'open', residual: 0, detail: {} }) as { at: string }).at, '1969-12-31T23:59:59.999Z')
  t.equal((historyView({ type: 'x', atMs: Date.UTC(9999, 11, 31, 23, 59, 59, 999), keyId: 'k', state: 'open', residual: 0, detail: {} }) as { at: string }).at, '9999-12-31T23:59:59.999Z')
})

t.test('a time that is no integer millisecond is refused, not printed', async (t) => {
  t.throws(() => historyView({ type: 'x', atMs: 1.5, keyId: 'k', state: 'open', residual: 0, detail: {} }))
})
