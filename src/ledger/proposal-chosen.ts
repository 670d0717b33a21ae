/** @module A proposal as chosen (its items, score and rule), the settings a run takes and their defaults, and the answer's order: score, highest first, then the earliest line. */

import { itemSteps, type EntryItem, type LineItem } from './proposal-items.js'
import type { MatchingRule } from './matching-rules-state.js'
import type { Scored } from './proposal-score.js'
import type { WorkMeter } from './proposal-work.js'

export interface Chosen {
  /** Ascending line number. */
  readonly lines: readonly LineItem[]
  /** Ascending entry seq. */
  readonly entries: readonly EntryItem[]
  readonly scored: Scored
  /** The `propose` rule that chose it (proposal-rules.ts), or null: the proposals' own search did. */
  readonly rule: RuleChoice | null
}

/** A rule's proposal: the rule, and lines minus entries (0 unless the rule has an amount tolerance). */
export interface RuleChoice {
  readonly rule: MatchingRule
  readonly matchedAmount: number
}

export interface ProposalSettings {
  /** 0..31: the largest distance in days between a line and an entry of a proposal. */
  readonly dateToleranceDays: number
  /** 2..8: the most items on the many side of an N:1 or 1:N proposal. */
  readonly maxGroup: number
  /** Search steps one line (1:1) or one target (N:1, 1:N) may cost; spent, the search gives up on it. */
  readonly candidateBudget: number
  /** Steps between two yield points of a run (the actor cuts its slices by time at these points). */
  readonly yieldSteps: number
}

export const proposalDefaults: ProposalSettings = {
  dateToleranceDays: 3,
  maxGroup: 4,
  /** Enough for a 4-item group in a pool of a few hundred same-sign items (bench/proposals.ts). */
  candidateBudget: 20_000,
  /**
   * A yield point every this many steps, about 50 µs of work on the bench machine: the actor resumes
   * the run until its slice's time is spent (src/actor/slice-runner.ts), so this only bounds how far a
   * slice can overrun (bench/proposals.ts measures the longest stretch between two yields).
   */
  yieldSteps: 1_000,
}

/** Marks the items taken, so no later proposal of the same answer can use them. */
export function take(into: Chosen[], lines: readonly LineItem[], entries: readonly EntryItem[], scored: Scored): void {
  for (const line of lines) line.used = true
  for (const entry of entries) entry.used = true
  into.push({ lines: [...lines].sort((a, b) => a.order - b.order), entries: [...entries].sort((a, b) => a.order - b.order), scored, rule: null })
}

/** Scores are rounded to 4 decimals, so they fall in 10,001 buckets: orders by score are counting sorts, done in slices. */
export const scoreBucketsCount = 10_001

export function scoreBucketOf(score: number): number {
  return Math.round(score * (scoreBucketsCount - 1))
}

/**
 * The answer's order: score, highest first, then the earliest line (proposals are disjoint, so that
 * decides every tie). A counting sort on the score, then each bucket by earliest line, each proposal
 * turned into its view as it is placed, in slices.
 */
export function* orderChosen<V>(chosen: readonly Chosen[], view: (chosen: Chosen) => V, meter: WorkMeter): Generator<undefined, V[], undefined> {
  const buckets: Chosen[][] = []
  for (const each of chosen) (buckets[scoreBucketOf(each.scored.score)] ??= []).push(each)
  if (meter.spend(chosen.length)) yield
  const ordered: V[] = []
  for (let index = scoreBucketsCount - 1; index >= 0; index--) {
    const bucket = buckets[index]
    if (bucket === undefined) continue
    bucket.sort((a, b) => a.lines[0].order - b.lines[0].order)
    if (meter.spend(bucket.length)) yield
    for (const each of bucket) {
      ordered.push(view(each))
      if (meter.spend(itemSteps)) yield
    }
  }
  return ordered
}
