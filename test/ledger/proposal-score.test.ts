/**
 * src/ledger/proposal-score.ts on its own: the score is 0.4 + 0.3 × (1 − d / (t + 1)) + 0.2 × r + 0.1 × c − 0.05 × (n − 2),
 * clamped to 0..1 and rounded to four decimals, with its reasons; each term checked alone against a figure worked by
 * hand, then together; the date distance the largest over every line and entry; counterparties agreeing either way.
 */
import t from 'tap'
import type { EntryItem, LineItem } from '../../src/ledger/proposal-items.ts'
import { scoreProposal, scoreWeights } from '../../src/ledger/proposal-score.ts'

const line = (day: number, tokens: string[] = [], counterparty: string[] = []) => ({ day, tokens, counterparty }) as unknown as LineItem
const entry = (day: number, text = '', compactText = '', counterparty: string | null = null) => ({ day, text, compactText, counterparty }) as unknown as EntryItem

t.test('the weights', async (t) => {
  t.same(scoreWeights, { amount: 0.4, date: 0.3, reference: 0.2, counterparty: 0.1, perExtraItem: 0.05 })
})

t.test('amount and date: same day 0.7; a day apart graded by the tolerance, rounded to four decimals', async (t) => {
  t.same(scoreProposal([line(100)], [entry(100)], 3), { score: 0.7, reasons: ['amount', 'same_date'], dateDistanceDays: 0 })
  t.same(scoreProposal([line(100)], [entry(102)], 3), { score: 0.55, reasons: ['amount', 'near_date'], dateDistanceDays: 2 }, '0.4 + 0.3 × (1 − 2/4)')
  t.same(scoreProposal([line(100)], [entry(99)], 6).score, 0.6571, '0.4 + 0.3 × 6/7 = 0.657142…')
  t.same(scoreProposal([line(100)], [entry(104)], 3).score, 0.4, 'at tolerance + 1 the date earns nothing')
})

t.test('reference: the share of the line\'s tokens found in any entry\'s text, averaged over the lines', async (t) => {
  t.same(scoreProposal([line(1, ['inv', '2024'])], [entry(1, 'payment inv 7')], 0), { score: 0.8, reasons: ['amount', 'same_date', 'reference'], dateDistanceDays: 0 })
  t.equal(scoreProposal([line(1, ['inv', '2024'])], [entry(1, 'inv'), entry(1, 'for 2024')], 0).score, round(0.4 + 0.3 + 0.2 - 0.05), 'tokens found across entries')
  t.equal(scoreProposal([line(1, ['inv']), line(1)], [entry(1, 'inv')], 0).score, round(0.4 + 0.3 + 0.2 * 0.5 - 0.05), 'a line without reference counts 0')
  t.same(scoreProposal([line(1, ['zzz'])], [entry(1, 'inv')], 0).reasons, ['amount', 'same_date'], 'nothing found: no reason')
})

t.test('counterparty: the line\'s name in the entry\'s compact text, or the entry\'s short name in the line\'s', async (t) => {
  t.same(scoreProposal([line(1, [], ['acmegmbh'])], [entry(1, '', 'payment acmegmbh')], 0), { score: 0.8, reasons: ['amount', 'same_date', 'counterparty'], dateDistanceDays: 0 })
  t.equal(scoreProposal([line(1, [], ['acmegmbh'])], [entry(1, '', 'payment', 'acme')], 0).score, 0.8, 'the bookkeeper\'s short name in the bank\'s longer one')
  t.equal(scoreProposal([line(1, [], ['acmegmbh'])], [entry(1, '', 'payment', 'other')], 0).score, 0.7)
  t.equal(scoreProposal([line(1, [], ['acmegmbh']), line(1)], [entry(1, '', 'acmegmbh')], 0).score, round(0.4 + 0.3 + 0.1 * 0.5 - 0.05), 'the share of lines')
})

t.test('every term: 1.0 at most; the largest date distance over all pairs; extra items cost, clamped at 0', async (t) => {
  t.equal(scoreProposal([line(5, ['ref'], ['acme'])], [entry(5, 'ref', 'acme')], 2).score, 1)
  const spread = scoreProposal([line(10), line(12)], [entry(11)], 3)
  t.equal(spread.dateDistanceDays, 1)
  t.equal(spread.score, round(0.4 + 0.3 * 0.75 - 0.05))
  t.equal(scoreProposal([line(1)], [entry(9), entry(1)], 3).dateDistanceDays, 8)
  const many = scoreProposal([line(0)], Array.from({ length: 20 }, () => entry(30)), 3)
  t.same(many, { score: 0, reasons: ['amount', 'near_date'], dateDistanceDays: 30 }, '0.4 − 0.3 × 26/4 − 0.95: clamped')
})

function round(score: number): number {
  return Math.round(score * 1e4) / 1e4
}
