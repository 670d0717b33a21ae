/** @module The commands a workspace actor applies, as they are logged: plain data, wire names, time and key inside. */

import type { Rejection } from '../errors.js'
import type { Visibility } from './visibility.js'

/** What every command carries: the clock reading and the acting key, stamped once at the edge. */
export interface CommandEnvelope {
  readonly at_ms: number
  readonly key_id: string
  readonly visibility: Visibility
  /** key: where the answer is stored (the Idempotency-Key, or the caller's own slot beside a record it may not see: ledger/idempotency.ts). */
  readonly idempotency?: { readonly key: string; readonly fingerprint: string }
}

export interface AccountCreate extends CommandEnvelope {
  readonly type: 'account.create'
  readonly name: string
  readonly tags: readonly string[]
}

export interface AccountUpdate extends CommandEnvelope {
  readonly type: 'account.update'
  readonly account: string
  readonly name?: string
  readonly tags?: readonly string[]
}

/**
 * The acceptance rules of entry.post by version. A rule added later must not refuse on replay what an
 * older record logged as accepted, so the edge stamps the version it built the command under and the
 * ledger applies that version's rules. 1 (absent): the original rules. 2: an entry moves money between
 * accounts (its lines are not all on one account).
 */
export const entryRulesVersion = 2

export interface EntryPost extends CommandEnvelope {
  readonly type: 'entry.post'
  readonly lines: readonly { readonly account: string; readonly amount: number }[]
  readonly effective_at_ms: number | null
  readonly description: string | null
  readonly metadata: Readonly<Record<string, string>> | null
  /** entryRulesVersion when built; absent in records logged before version 2 (read as 1). */
  readonly rules?: number
}

/** One entry of a batch: an entry.post's own fields (the batch carries the envelope and the rules version). */
export type EntryBatchItem = Pick<EntryPost, 'lines' | 'effective_at_ms' | 'description' | 'metadata'>

/**
 * Many postings in one command and one log record (CONTRACT.md 13). atomic: all or nothing, the first
 * refused item answers for the batch; else each item is posted or refused on its own, in order. An item
 * whose shape the edge refused (per item mode only) is logged as that refusal, so its answer replays too.
 */
export interface EntryBatch extends CommandEnvelope {
  readonly type: 'entry.batch'
  readonly atomic: boolean
  readonly entries: readonly (EntryBatchItem | { readonly refused: Rejection })[]
  readonly rules: number
}

export interface WindowOpen extends CommandEnvelope {
  readonly type: 'window.open'
  readonly label: string
  readonly accounts: readonly string[]
  readonly from: string
  readonly to: string
  readonly claimed_movement: number
  readonly statement_ref: string | null
  readonly tolerance: number
  /** The workspace timezone when the window was opened; the window keeps it. */
  readonly time_zone: string
}

export interface StatementLineInput {
  readonly amount: number
  readonly date: string
  readonly reference: string | null
  readonly description: string | null
}

export interface WindowLinesAdd extends CommandEnvelope {
  readonly type: 'window.lines.add'
  readonly window: string
  readonly lines: readonly StatementLineInput[]
}

export type MatchStrategy = 'amount_and_date' | 'manual' | 'write_off'

export interface MatchCreate extends CommandEnvelope {
  readonly type: 'match.create'
  readonly window: string
  readonly statement_lines: readonly string[]
  readonly entries: readonly string[]
  readonly strategy: MatchStrategy
  readonly reason: string | null
}

export interface MatchReverse extends CommandEnvelope {
  readonly type: 'match.reverse'
  readonly window: string
  readonly match: string
}

export interface WindowTransition extends CommandEnvelope {
  readonly type: 'window.transition'
  readonly window: string
  readonly state: string
  readonly reason: string | null
}

/** The seven event types a subscription can name (CONTRACT.md 8). */
export const webhookEventTypes = [
  'entry.posted', 'reconciliation.opened', 'reconciliation.balanced', 'reconciliation.closed', 'reconciliation.abandoned', 'match.created', 'match.reversed',
] as const
export type WebhookEventType = (typeof webhookEventTypes)[number]

export interface WebhookCreate extends CommandEnvelope {
  readonly type: 'webhook.create'
  readonly url: string
  readonly events: readonly string[]
  /** `whsec_<base64>`: made at the edge (randomness stays out of the core), kept in state as the HMAC key. */
  readonly secret: string
}

export interface WebhookDelete extends CommandEnvelope {
  readonly type: 'webhook.delete'
  readonly webhook: string
}

export type WorkspaceCommand =
  | AccountCreate
  | AccountUpdate
  | EntryPost
  | EntryBatch
  | WindowOpen
  | WindowLinesAdd
  | MatchCreate
  | MatchReverse
  | WindowTransition
  | WebhookCreate
  | WebhookDelete
