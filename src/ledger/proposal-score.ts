/**
 * @module How much a proposal is to be trusted: a score in 0..1 from amount, date distance, reference
 * and counterparty agreement, with the reasons behind it (the formula docs/API.md gives).
 */

import type { EntryItem, LineItem } from './proposal-items.js'

export type ProposalReason = 'amount' | 'same_date' | 'near_date' | 'reference' | 'counterparty'

export interface Scored {
  readonly score: number
  readonly reasons: readonly ProposalReason[]
  /** The largest distance in days between a line and an entry of the proposal. */
  readonly dateDistanceDays: number
}

/** Every proposal nets to zero, so the amount part is always earned; the rest grades the evidence. */
export const scoreWeights = { amount: 0.4, date: 0.3, reference: 0.2, counterparty: 0.1, perExtraItem: 0.05 } as const
/** Scores are rounded so that equal evidence gives equal scores, however the floats were summed. */
const scoreDecimals = 4

/**
 * score = 0.4 + 0.3 × (1 − d / (t + 1)) + 0.2 × r + 0.1 × c − 0.05 × (n − 2), clamped to 0..1, where d is
 * the largest date distance in days, t the date tolerance, r the mean over the lines of the share of a
 * line's reference tokens found in the proposal's entries (0 for a line without reference), c the share
 * of lines whose counterparty agrees with an entry of the proposal (counterpartyAgrees), n the number of
 * lines and entries.
 */
export function scoreProposal(lines: readonly LineItem[], entries: readonly EntryItem[], toleranceDays: number): Scored {
  let dateDistanceDays = 0
  for (const line of lines) for (const entry of entries) dateDistanceDays = Math.max(dateDistanceDays, Math.abs(line.day - entry.day))
  const date = 1 - dateDistanceDays / (toleranceDays + 1)
  let reference = 0
  let counterparty = 0
  for (const line of lines) {
    reference += referenceShare(line, entries)
    if (line.counterparty.length > 0 && entries.some((entry) => counterpartyAgrees(line, entry))) counterparty += 1
  }
  reference /= lines.length
  counterparty /= lines.length
  const raw = scoreWeights.amount + scoreWeights.date * date + scoreWeights.reference * reference + scoreWeights.counterparty * counterparty
    - scoreWeights.perExtraItem * (lines.length + entries.length - 2)
  const reasons: ProposalReason[] = ['amount', dateDistanceDays === 0 ? 'same_date' : 'near_date']
  if (reference > 0) reasons.push('reference')
  if (counterparty > 0) reasons.push('counterparty')
  return { score: roundScore(Math.min(1, Math.max(0, raw))), reasons, dateDistanceDays }
}

/**
 * A line's counterparty (its name or account, compact) occurs in the entry's description or a metadata
 * value, or the entry's own `counterparty` (a bookkeeper's short name) occurs in one of them (the bank's
 * longer legal name). Lines hold the counterparty as `{name, account}`, entries as free text.
 */
function counterpartyAgrees(line: LineItem, entry: EntryItem): boolean {
  for (const key of line.counterparty) {
    if (entry.compactText.includes(key)) return true
    if (entry.counterparty !== null && key.includes(entry.counterparty)) return true
  }
  return false
}

/** The share of the line's reference tokens that occur in the text of at least one of the entries. */
function referenceShare(line: LineItem, entries: readonly EntryItem[]): number {
  if (line.tokens.length === 0) return 0
  let found = 0
  for (const token of line.tokens) if (entries.some((entry) => entry.text.includes(token))) found += 1
  return found / line.tokens.length
}

function roundScore(score: number): number {
  const scale = 10 ** scoreDecimals
  return Math.round(score * scale) / scale
}
