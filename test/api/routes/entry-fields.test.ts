/**
 * An entry body's own rules (src/api/routes/entry-fields.ts), called directly: entryFieldsOf refuses zero amounts
 * (every one named) and a timestamp that is not RFC 3339 (naming /effective_at), else gives the fields entry.post
 * logs (absent ones null, lines reduced to account and amount, an offset read as the UTC instant); withApprovals
 * adds the workspace's approval settings when any action waits (a write-off threshold of 0 counts), withLockClosed
 * adds lock_closed when the workspace locks closed periods; otherwise each gives the command back as it was.
 */
import t from 'tap'
import { entryFieldsOf, withApprovals, withLockClosed } from '../../../src/api/routes/entry-fields.ts'
import { settingsDefault } from '../../../src/ledger/system.ts'
import { workspaceRecord } from '../../support/route-context.ts'

const lines = [{ account: 'assets:bank', amount: 1 }, { account: 'income:sales', amount: -1 }]

t.test('entryFieldsOf: the logged fields, absent ones null, lines with their account and amount only', async (t) => {
  t.same(entryFieldsOf({ lines }), { lines, effective_at_ms: null, description: null, metadata: null })
  t.same(entryFieldsOf({ lines, description: null, metadata: null }), { lines, effective_at_ms: null, description: null, metadata: null })
  const extra = [{ account: 'assets:bank', amount: 5, memo: 'x' }, { account: 'income:sales', amount: -5, memo: 'y' }]
  t.same(entryFieldsOf({ lines: extra, description: 'Sale', metadata: { order: '42' } }), {
    lines: [{ account: 'assets:bank', amount: 5 }, { account: 'income:sales', amount: -5 }], effective_at_ms: null, description: 'Sale', metadata: { order: '42' },
  }, 'nothing but account and amount is logged of a line')
})

t.test('entryFieldsOf: effective_at read as the UTC instant, across DST changes and leap days', async (t) => {
  const cases: [string, number][] = [
    ['2026-03-29T01:59:59.999+01:00', Date.UTC(2026, 2, 29, 0, 59, 59, 999)],
    ['2026-03-29T03:00:00+02:00', Date.UTC(2026, 2, 29, 1)],
    ['2026-10-25T02:30:00+02:00', Date.UTC(2026, 9, 25, 0, 30)],
    ['2026-10-25T02:30:00+01:00', Date.UTC(2026, 9, 25, 1, 30)],
    ['2028-02-29T23:59:59-12:00', Date.UTC(2028, 2, 1, 11, 59, 59)],
    ['1970-01-01T00:00:00Z', 0],
  ]
  for (const [text, ms] of cases) t.equal((entryFieldsOf({ lines, effective_at: text }) as { effective_at_ms: number }).effective_at_ms, ms, text)
})

t.test('entryFieldsOf: a timestamp that is not RFC 3339 refused naming /effective_at', async (t) => {
  for (const bad of ['', '2026-03-08', '2026-02-29T00:00:00Z', '2026-03-08T24:00:00Z', '2026-12-31T23:59:60Z', '2026-03-08 10:00', 'yesterday']) {
    t.match(entryFieldsOf({ lines, effective_at: bad }), {
      ok: false, code: 'request_invalid', details: [{ path: '/effective_at', message: 'must be an RFC 3339 timestamp' }],
    }, JSON.stringify(bad))
  }
})

t.test('entryFieldsOf: every zero amount named, before the timestamp is looked at', async (t) => {
  const zeros = [{ account: 'a', amount: 0 }, { account: 'b', amount: 3 }, { account: 'c', amount: 0 }]
  t.match(entryFieldsOf({ lines: zeros, effective_at: 'not a time' }), {
    ok: false, code: 'request_invalid', details: [{ path: '/lines/0/amount' }, { path: '/lines/2/amount' }],
  })
  const refused = entryFieldsOf({ lines: [{ account: 'a', amount: -1 }, { account: 'b', amount: 0 }] }) as { details: readonly unknown[] }
  t.equal(refused.details.length, 1, 'a negative amount is fine, only the zero is named')
})

t.test('withApprovals: the settings when a close with residual or any write-off waits (0 included), else the command itself', async (t) => {
  const command = { type: 'window.transition', window: 'rec_1' }
  t.equal(withApprovals(command, workspaceRecord()), command, 'nothing waits: the same object, no approvals field')
  const residual = { close_with_residual: true, write_off_over: null }
  t.same(withApprovals(command, workspaceRecord({ ...settingsDefault, approvals: residual })), { ...command, approvals: residual })
  for (const over of [0, 1, 5000]) {
    const approvals = { close_with_residual: false, write_off_over: over }
    t.same(withApprovals(command, workspaceRecord({ ...settingsDefault, approvals })), { ...command, approvals }, `write_off_over ${over}`)
  }
  t.same(command, { type: 'window.transition', window: 'rec_1' }, 'the command given is not changed')
})

t.test('withLockClosed: lock_closed true when the workspace locks closed periods, else the command itself', async (t) => {
  const command = { type: 'entry.post', lines }
  t.equal(withLockClosed(command, workspaceRecord()), command)
  t.same(withLockClosed(command, workspaceRecord({ ...settingsDefault, lock_closed_periods: true })), { ...command, lock_closed: true })
  t.notOk('lock_closed' in command, 'the command given is not changed')
})
