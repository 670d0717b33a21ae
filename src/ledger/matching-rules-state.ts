/** @module The data model of a workspace's matching rules (state.ts holds it; matching-rules.ts changes and presents it). */

import type { MatchingRuleFields } from './commands.js'

export interface MatchingRule extends MatchingRuleFields {
  readonly id: string
  readonly seq: number
  readonly createdAtMs: number
  readonly createdBy: string
  readonly updatedAtMs: number
}

export interface MatchingRulesState {
  /** The seq of the last rule created (deleted ones included): ids are never reused. */
  lastSeq: number
  /** Live rules by id, in creation order. */
  readonly rules: Map<string, MatchingRule>
}

export function createMatchingRulesState(): MatchingRulesState {
  return { lastSeq: 0, rules: new Map() }
}
