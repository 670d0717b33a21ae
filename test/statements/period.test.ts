/**
 * A statement's period from its balances (src/statements/period.ts): the day after the opening balance's date to
 * the closing balance's, never starting after it ends; a later statement of the same account in the same file
 * starts the day after the earlier one's closing date; dates roll over months, years and leap days.
 */
import t from 'tap'
import { ClosingDates, periodOfBalances } from '../../src/statements/period.ts'

t.test('from the day after the opening date to the closing date', async (t) => {
  t.same(periodOfBalances('2026-02-28', '2026-03-31', null), { from: '2026-03-01', to: '2026-03-31' })
  t.same(periodOfBalances('2025-12-31', '2026-01-31', null), { from: '2026-01-01', to: '2026-01-31' }, 'across a year')
  t.same(periodOfBalances('2024-02-28', '2024-02-29', null), { from: '2024-02-29', to: '2024-02-29' }, 'a leap day')
  t.same(periodOfBalances('2026-03-09', '2026-03-10', null), { from: '2026-03-10', to: '2026-03-10' }, 'one day')
})

t.test('opening and closing on the same day (or the opening later): one day, the closing date', async (t) => {
  t.same(periodOfBalances('2026-03-10', '2026-03-10', null), { from: '2026-03-10', to: '2026-03-10' })
  t.same(periodOfBalances('2026-03-12', '2026-03-10', null), { from: '2026-03-10', to: '2026-03-10' })
})

t.test('after an earlier statement of the account: the day after its closing date, whatever the opening says', async (t) => {
  t.same(periodOfBalances('2026-03-01', '2026-03-31', '2026-03-15'), { from: '2026-03-16', to: '2026-03-31' })
  t.same(periodOfBalances('2026-01-01', '2026-03-01', '2026-02-28'), { from: '2026-03-01', to: '2026-03-01' })
})

t.test('closing dates are kept per account, the last one recorded', async (t) => {
  const dates = new ClosingDates()
  t.equal(dates.previous('DE02'), null)
  dates.record('DE02', '2026-03-15')
  dates.record('FR76', '2026-03-20')
  dates.record('DE02', '2026-03-31')
  t.equal(dates.previous('DE02'), '2026-03-31')
  t.equal(dates.previous('FR76'), '2026-03-20')
  t.equal(dates.previous('de02'), null, 'accounts as written')
})
