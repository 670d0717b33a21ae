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
  /**
   * The edge stamps it (the request's, else the workspace's). Absent in records logged before currencies
   * existed, when every workspace was in currencyDefault (ledger/system.ts): read as that, so they replay alike.
   */
  readonly currency?: string
  readonly external_id?: string | null
}

export interface AccountUpdate extends CommandEnvelope {
  readonly type: 'account.update'
  readonly account: string
  readonly name?: string
  readonly tags?: readonly string[]
  readonly currency?: string
  /** null removes it. */
  readonly external_id?: string | null
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
  /** True when the workspace locked every closed period (its setting lock_closed_periods) as the edge built it; absent: false. */
  readonly lock_closed?: boolean
}

/** One entry of a batch: an entry.post's own fields (the batch carries the envelope and the rules version). */
export type EntryBatchItem = Pick<EntryPost, 'lines' | 'effective_at_ms' | 'description' | 'metadata'>

/**
 * Many postings in one command and one log record (docs/API.md, Bulk postings). atomic: all or nothing, the first
 * refused item answers for the batch; else each item is posted or refused on its own, in order. An item
 * whose shape the edge refused (per item mode only) is logged as that refusal, so its answer replays too.
 */
export interface EntryBatch extends CommandEnvelope {
  readonly type: 'entry.batch'
  readonly atomic: boolean
  readonly entries: readonly (EntryBatchItem | { readonly refused: Rejection })[]
  readonly rules: number
  /** As entry.post's. */
  readonly lock_closed?: boolean
}

/**
 * Reverses an entry (docs/API.md, Reversals): a new entry with every line of `entry` negated, linked both ways
 * (`reverses`, `reversed_by`); an entry is reversed at most once.
 */
export interface EntryReverse extends CommandEnvelope {
  readonly type: 'entry.reverse'
  /** The id of the entry reversed (ent_…). */
  readonly entry: string
  /** null: the command's time. */
  readonly effective_at_ms: number | null
  /** null: `Reversal of <entry id>`. */
  readonly description: string | null
  /** As entry.post's. */
  readonly lock_closed?: boolean
}

export interface WindowOpen extends CommandEnvelope {
  readonly type: 'window.open'
  readonly label: string
  readonly accounts: readonly string[]
  readonly from: string
  readonly to: string
  readonly claimed_movement: number
  /** The statement's balances, both optional (absent in records logged before they existed: null). */
  readonly opening_balance?: number | null
  readonly closing_balance?: number | null
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
  /** Absent in records logged before statement files: null. */
  readonly value_date?: string | null
  readonly counterparty?: { readonly name: string | null; readonly account: string | null } | null
}

export interface WindowLinesAdd extends CommandEnvelope {
  readonly type: 'window.lines.add'
  readonly window: string
  readonly lines: readonly StatementLineInput[]
  /** Lines of a bank statement file: one booked outside the period is kept and flagged, not refused (docs/API.md, Bank statement formats). */
  readonly keep_outside?: boolean
  /** The statements of that file: each one's account (its external_id) must be one of the window's, in its currency. */
  readonly statements?: readonly { readonly account: string; readonly currency: string }[]
}

/** One statement of a file, as the edge read and checked it (balanced, amounts in its currency's minor unit). */
export interface StatementInput {
  /** The account identifier as the file writes it; the account whose external_id it is. */
  readonly account: string
  readonly currency: string
  readonly statement_ref: string
  readonly label: string
  readonly from: string
  readonly to: string
  readonly claimed_movement: number
  /** The file's opening and closing balance (absent in records logged before they existed: null). */
  readonly opening_balance?: number | null
  readonly closing_balance?: number | null
  /** A hash of the statement's content (not its label): the same statement imported again is known by it. */
  readonly fingerprint: string
  readonly lines: readonly StatementLineInput[]
}

/** Every statement of one file opens its window, all or none, in one log record (docs/API.md, Bank statement formats). */
export interface StatementsImport extends CommandEnvelope {
  readonly type: 'statements.import'
  readonly statements: readonly StatementInput[]
  /** The workspace timezone when imported; the windows keep it. */
  readonly time_zone: string
  /** ?auto_match=true: the auto_match rules run on each window this import opens, in this command (absent: false). */
  readonly auto_match?: boolean
}

export type MatchStrategy = 'amount_and_date' | 'manual' | 'write_off'

export interface MatchCreate extends CommandEnvelope {
  readonly type: 'match.create'
  readonly window: string
  readonly statement_lines: readonly string[]
  readonly entries: readonly string[]
  readonly strategy: MatchStrategy
  readonly reason: string | null
  /** 0..31 (absent: 0, as in records logged before it existed): how many days apart a 1:1 amount_and_date line and entry may be. */
  readonly date_tolerance_days?: number
  /**
   * A write-off of one line that also posts the entry the books lacked (docs/API.md, Adjustments): the line's amount on
   * the window's account, the opposite on `account`, matched to the line. Absent: a plain match.
   */
  readonly adjustment?: { readonly account: string; readonly description: string | null }
  /** As entry.post's (the adjustment's entry). */
  readonly lock_closed?: boolean
  /** As window.transition's. */
  readonly approvals?: ApprovalSettings
}

/** One match of a batch: a match body without its window (the batch names it once). */
export type MatchItem = Pick<MatchCreate, 'statement_lines' | 'entries' | 'strategy' | 'reason' | 'date_tolerance_days'>

/** Up to matchBatchItemsMax matches in one command and one log record, all or nothing (docs/API.md, Matching help: proposals, dry runs, batches). */
export interface MatchBatch extends CommandEnvelope {
  readonly type: 'match.batch'
  readonly window: string
  readonly matches: readonly MatchItem[]
  /** As window.transition's: a write-off item over write_off_over holds the whole batch. */
  readonly approvals?: ApprovalSettings
}

export const matchBatchItemsMax = 1000

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
  /** The acting key's name, stamped at the edge: the audit pack says who closed (absent in records logged before: null). */
  readonly key_name?: string | null
  /** A close that locks the period for the window's accounts (docs/API.md, Period locks); absent in records logged before locks: false. */
  readonly lock_period?: boolean
  /** The workspace's approvals setting as the edge built the command (docs/API.md, Approvals); absent: none asked. */
  readonly approvals?: ApprovalSettings
}

/**
 * When an action waits for a second key (docs/API.md, Approvals): a close that leaves a residual, a write-off over
 * an amount (absolute, minor units; null: none). Stamped on the command by the edge, so replay decides alike.
 */
export interface ApprovalSettings {
  readonly close_with_residual: boolean
  readonly write_off_over: number | null
}

/** A pending approval decided (docs/API.md, Approvals): approve applies its action as of now, in this same command; reject records why. */
export interface ApprovalDecide extends CommandEnvelope {
  readonly type: 'approval.decide'
  readonly approval: string
  readonly decision: 'approve' | 'reject'
  /** Required to reject; absent to approve. */
  readonly reason: string | null
  /** The deciding key's name, stamped at the edge. */
  readonly key_name: string | null
  /** As entry.post's, as the workspace's settings stand at the decision (an adjustment's entry). */
  readonly lock_closed?: boolean
}

/** The event types a subscription can name (docs/API.md, Webhooks; reconciliation.drifted: docs/API.md, Exports). */
export const webhookEventTypes = [
  'entry.posted', 'reconciliation.opened', 'reconciliation.balanced', 'reconciliation.closed', 'reconciliation.abandoned', 'reconciliation.drifted', 'match.created', 'match.reversed',
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

/** A text condition of a matching rule (docs/API.md, Matching rules): equals and contains ignore case; a regex runs in linear time (linear-regex.ts). */
export type RuleTextCondition = { readonly equals: string } | { readonly contains: string } | { readonly regex: string }

/** What a statement line (and the entries it pairs with) must meet for a rule to match it. */
export interface RuleConditions {
  /** exact: the sums are equal; tolerance: they may differ by that many minor units, the difference written off (one_to_one only). */
  readonly amount: 'exact' | { readonly tolerance: number }
  /** 0..31: the most days between the line's date and each entry's effective date. */
  readonly date_window_days: number
  readonly reference: RuleTextCondition | null
  readonly counterparty: Exclude<RuleTextCondition, { regex: string }> | null
  readonly description: Extract<RuleTextCondition, { regex: string }> | null
}

export type RuleAction = 'propose' | 'auto_match'
export type RuleStrategy = 'one_to_one' | 'many_to_one' | 'one_to_many'

export interface MatchingRuleFields {
  readonly name: string
  /** Lower first; equal priorities in creation order. */
  readonly priority: number
  readonly conditions: RuleConditions
  readonly action: RuleAction
  readonly strategy: RuleStrategy
}

export interface MatchingRuleCreate extends CommandEnvelope, MatchingRuleFields {
  readonly type: 'matching_rule.create'
}

/** The fields given replace the rule's (conditions as a whole). */
export interface MatchingRuleUpdate extends CommandEnvelope, Partial<MatchingRuleFields> {
  readonly type: 'matching_rule.update'
  readonly rule: string
}

export interface MatchingRuleDelete extends CommandEnvelope {
  readonly type: 'matching_rule.delete'
  readonly rule: string
}

/** A statement line's assignee and note (docs/API.md, Exceptions): a field absent stays as it is, null clears it. */
export interface LineAnnotate extends CommandEnvelope {
  readonly type: 'window.line.annotate'
  readonly window: string
  readonly line: string
  readonly assignee?: string | null
  readonly note?: string | null
}

/** The workspace's auto_match rules applied to a window's unmatched lines and entries, every match in this one record (docs/API.md, Matching rules). */
export interface MatchAuto extends CommandEnvelope {
  readonly type: 'match.auto'
  readonly window: string
}

/**
 * The workspace's seal key given on upgrade (docs/API.md, "The seal"): logged at start-up for a workspace
 * created before keys existed, after the system command that gave it the key (ledger/system.ts). Every closed
 * window sealed without a signature is signed with it, with a `seal.signed` history event. Made by the
 * service, not a request: key_id names no API key.
 */
export interface SealKeyGive extends CommandEnvelope {
  readonly type: 'seal.key'
  /** base64 PKCS#8 DER, made at the edge (randomness stays out of the core). */
  readonly private_key: string
  /** base64 of the raw 32 bytes. */
  readonly public_key: string
}

export type WorkspaceCommand =
  | AccountCreate
  | AccountUpdate
  | EntryPost
  | EntryBatch
  | EntryReverse
  | WindowOpen
  | WindowLinesAdd
  | StatementsImport
  | MatchCreate
  | MatchBatch
  | MatchReverse
  | WindowTransition
  | WebhookCreate
  | WebhookDelete
  | MatchingRuleCreate
  | MatchingRuleUpdate
  | MatchingRuleDelete
  | MatchAuto
  | LineAnnotate
  | SealKeyGive
  | ApprovalDecide

/**
 * Every workspace command type, once: a type-keyed literal, so a type added to WorkspaceCommand and not
 * here (or listed here and not a command) is a compile error. Tests enumerate it, so a new command is
 * checked by them as soon as it exists.
 */
const commandTypeTable: { readonly [T in WorkspaceCommand['type']]: true } = {
  'account.create': true, 'account.update': true, 'entry.post': true, 'entry.batch': true, 'entry.reverse': true, 'window.open': true, 'window.lines.add': true,
  'statements.import': true, 'match.create': true, 'match.batch': true, 'match.reverse': true, 'window.transition': true,
  'webhook.create': true, 'webhook.delete': true, 'seal.key': true, 'matching_rule.create': true, 'matching_rule.update': true, 'matching_rule.delete': true,
  'match.auto': true, 'approval.decide': true, 'window.line.annotate': true,
}
export const workspaceCommandTypes = Object.keys(commandTypeTable) as readonly WorkspaceCommand['type'][]

/**
 * The default of a switch over command types (system.ts): `command` is `never` once every case is written, so a
 * type without its case is a compile error there; a command of no known type (a damaged or newer log
 * record) stops the process rather than being applied or reported as nothing. The workspace commands'
 * table (command-table.ts) answers a type it does not hold with it too.
 */
export function unknownCommand(command: never): never {
  throw new Error(`unknown command type ${JSON.stringify((command as { type?: unknown }).type)}`)
}
