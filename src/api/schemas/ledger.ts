/** @module Request schemas of accounts, entries, reconciliations and the admin API (wire names). */

import { Type, type TObject, type TObjectOptions, type TProperties } from 'typebox'
import { webhookEventTypes } from '../../ledger/commands.js'
import { scopes } from '../../ledger/system.js'
import { regexPatternLengthMax } from '../../ledger/linear-regex.js'
import { ruleNameLengthMax, rulePriorityMax, ruleTextLengthMax, ruleToleranceMax } from '../../ledger/matching-rules.js'
import { lineAssigneeLengthMax, lineNoteLengthMax } from '../../ledger/exceptions.js'
import { webhookUrlLengthMax } from '../../ledger/webhooks.js'
import { approvalReasonLengthMax } from '../../ledger/approvals.js'
import { text, textPattern } from './text.js'

/**
 * An object of a request body: a field it does not know is refused (400 request_invalid naming it,
 * docs/API.md "Errors"), at any depth. Lenient bodies let a misspelt or misplaced flag pass as if it
 * were honoured: a match batch item's `dry_run` was ignored and the match committed.
 */
function fields<P extends TProperties>(properties: P, options: TObjectOptions = {}): TObject<P> {
  return Type.Object(properties, { ...options, additionalProperties: false })
}

export const amount = Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })
// Every string a client writes and reads back is `text`: no control characters but tab (text.ts).
const tags = Type.Array(text({ minLength: 1, maxLength: 100 }), { maxItems: 50 })
const accountName = text({ minLength: 1, maxLength: 200 })

/** ISO 4217 alpha-3; whether the code is one is checked by the handler (ledger/currency.ts). */
export const currencyCode = Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 alpha-3, e.g. EUR' })
/** The bank's identifier of the account (IBAN, account number) that statement imports look up. */
const externalId = text({ minLength: 1, maxLength: 64 })

export const accountCreate = fields({ name: accountName, currency: Type.Optional(currencyCode), external_id: Type.Optional(externalId), tags: Type.Optional(tags) })
export const accountUpdate = fields({
  name: Type.Optional(accountName),
  currency: Type.Optional(currencyCode),
  external_id: Type.Optional(Type.Union([externalId, Type.Null()])),
  tags: Type.Optional(tags),
})

/**
 * Up to 50 string values under keys of at most 40 characters. Written with propertyNames, not
 * Type.Record: a Record's key schema becomes a patternProperties key, so its length bound and
 * its pattern would only select which values are checked and never refuse a key.
 */
const metadata = Type.Object({}, {
  propertyNames: Type.String({ maxLength: 40, pattern: textPattern }),
  additionalProperties: text({ maxLength: 500 }),
  maxProperties: 50,
})

export const entryPost = fields({
  lines: Type.Array(fields({ account: accountName, amount }), { minItems: 2, maxItems: 1000 }),
  effective_at: Type.Optional(Type.String({ maxLength: 64 })),
  description: Type.Optional(Type.Union([text({ maxLength: 1000 }), Type.Null()])),
  metadata: Type.Optional(Type.Union([metadata, Type.Null()])),
})

/** docs/API.md, Reversals: the reversing entry's date and description; both optional (the body may be `{}`). */
export const entryReverse = fields({
  effective_at: Type.Optional(Type.String({ maxLength: 64, description: 'RFC 3339; absent: now' })),
  description: Type.Optional(Type.Union([text({ maxLength: 1000 }), Type.Null()], { description: 'absent or null: "Reversal of <entry id>"' })),
})

/** docs/API.md, Bulk postings: up to 8,190 entries (TigerBeetle's batch size). */
export const entryBatchSizeMax = 8190

/** The batch as published: each item an entry body. */
export const entryBatch = fields({
  entries: Type.Array(entryPost, { minItems: 1, maxItems: entryBatchSizeMax }),
  atomic: Type.Optional(Type.Boolean()),
})

/** The batch as checked at first: its items are checked one by one, so a refused one answers with its own index (or in place). */
export const entryBatchOuter = fields({
  entries: Type.Array(Type.Unknown(), { minItems: 1, maxItems: entryBatchSizeMax }),
  atomic: Type.Optional(Type.Boolean()),
})

export const windowOpen = fields({
  label: text({ maxLength: 200 }),
  accounts: Type.Array(accountName, { minItems: 1, maxItems: 100 }),
  window: fields({ from: Type.String({ maxLength: 32 }), to: Type.String({ maxLength: 32 }) }),
  claimed_movement: amount,
  opening_balance: Type.Optional(Type.Union([amount, Type.Null()])),
  closing_balance: Type.Optional(Type.Union([amount, Type.Null()])),
  statement_ref: Type.Optional(Type.Union([text({ maxLength: 500 }), Type.Null()])),
  tolerance: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
})

const nullableText = (maxLength: number) => Type.Optional(Type.Union([text({ maxLength }), Type.Null()]))

export const statementLine = fields({
  amount,
  date: Type.String({ maxLength: 32 }),
  reference: nullableText(500),
  description: nullableText(1000),
  value_date: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Null()])),
  counterparty: Type.Optional(Type.Union([fields({ name: nullableText(500), account: nullableText(100) }), Type.Null()])),
})

export const linesAdd = fields({ lines: Type.Array(statementLine, { minItems: 1, maxItems: 10_000 }) })

const ids = (minItems: number) => Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems, maxItems: 1000 })

/** The fields of one match, alone or in a batch. */
const matchFields = {
  statement_lines: ids(1),
  entries: Type.Optional(ids(0)),
  strategy: Type.Union([Type.Literal('amount_and_date'), Type.Literal('manual'), Type.Literal('write_off')]),
  reason: Type.Optional(Type.Union([text({ minLength: 1, maxLength: 500 }), Type.Null()])),
  date_tolerance_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 31, description: 'amount_and_date, one line to one entry: how many days apart their dates may be (default 0)' })),
}
const dryRun = Type.Optional(Type.Boolean({ description: 'Run every check and answer the figures the call would leave; store and log nothing' }))

export const matchItem = fields(matchFields)
/** docs/API.md, Adjustments: a write-off of one line that posts the entry the books lacked. */
const adjustment = Type.Optional(fields({
  account: accountName,
  description: Type.Optional(Type.Union([text({ maxLength: 1000 }), Type.Null()], { description: 'The entry\'s description; absent or null: the write-off\'s reason' })),
}, { description: 'With strategy write_off and one statement line: post the line\'s amount on the window\'s account against this account, and match the line to that entry' }))

export const matchCreate = fields({ ...matchFields, adjustment, dry_run: dryRun })
export const matchBatch = fields({ matches: Type.Array(matchItem, { minItems: 1, maxItems: 1000 }), dry_run: dryRun })

export const windowTransition = fields({
  state: Type.String({ maxLength: 32 }),
  reason: Type.Optional(Type.Union([text({ maxLength: 500 }), Type.Null()])),
  lock_period: Type.Optional(Type.Boolean({ description: 'With state closed: lock the period for the window\'s accounts (docs/API.md, Period locks)' })),
})

const limitPerMinute = Type.Integer({ minimum: 1, maximum: 100_000_000 })
const limits = fields({ writes_per_minute: limitPerMinute, reads_per_minute: limitPerMinute })

export const workspaceCreate = fields({
  id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
  timezone: Type.String({ minLength: 1, maxLength: 64 }),
  currency: Type.Optional(currencyCode),
  limits: Type.Optional(limits),
})

export const workspaceUpdate = fields({
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  currency: Type.Optional(currencyCode),
  limits: Type.Optional(fields({ writes_per_minute: Type.Optional(limitPerMinute), reads_per_minute: Type.Optional(limitPerMinute) })),
  settings: Type.Optional(fields({
    lock_closed_periods: Type.Optional(Type.Boolean({ description: 'Lock every closed window\'s period: no entry line on its accounts effective in it (docs/API.md, Period locks)' })),
    approvals: Type.Optional(fields({
      close_with_residual: Type.Optional(Type.Boolean({ description: 'A close that leaves a non-zero residual waits for approval (docs/API.md, Approvals)' })),
      write_off_over: Type.Optional(Type.Union([
        Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'A write-off whose amount (absolute, minor units) is over this waits for approval' }), Type.Null(),
      ])),
    })),
  })),
})

export const approvalReject = fields({
  reason: text({ minLength: 1, maxLength: approvalReasonLengthMax, description: 'Why the action is refused' }),
})

export const keyCreate = fields({
  workspace: Type.String({ minLength: 1, maxLength: 64 }),
  scopes: Type.Array(Type.Union(scopes.map((scope) => Type.Literal(scope))), { maxItems: scopes.length * 2 }),
  accounts: Type.Optional(Type.Union([Type.Array(text({ minLength: 1, maxLength: 201 }), { maxItems: 1000 }), Type.Null()])),
  name: Type.Optional(Type.Union([text({ maxLength: 200 }), Type.Null()])),
})

export const webhookEventType = Type.Union(webhookEventTypes.map((type) => Type.Literal(type)))

export const webhookCreate = fields({
  url: text({ minLength: 1, maxLength: webhookUrlLengthMax, description: 'Absolute http or https URL the events are POSTed to' }),
  events: Type.Array(webhookEventType, { minItems: 1, maxItems: webhookEventTypes.length, uniqueItems: true }),
})

const ruleText = text({ minLength: 1, maxLength: ruleTextLengthMax, description: 'Compared ignoring case' })
const rulePattern = text({ minLength: 1, maxLength: regexPatternLengthMax, description: 'A regular expression run in linear time; backreferences and lookaround are refused (docs/API.md, Matching rules)' })
const regexText = fields({ regex: rulePattern })
/** One object, not a union: an unknown field is then named alone. Exactly one of its fields is the ledger's check (matching-rules.ts). */
const textCondition = fields({ equals: Type.Optional(ruleText), contains: Type.Optional(ruleText), regex: Type.Optional(rulePattern) }, { minProperties: 1, description: 'Exactly one of equals, contains, regex' })
const plainTextCondition = fields({ equals: Type.Optional(ruleText), contains: Type.Optional(ruleText) }, { minProperties: 1, description: 'Exactly one of equals, contains' })

/** docs/API.md, Matching rules: absent fields are no condition (amount exact, date_window_days 0). */
export const ruleConditions = fields({
  amount: Type.Optional(Type.Union([Type.Literal('exact'), fields({ tolerance: Type.Integer({ minimum: 0, maximum: ruleToleranceMax, description: 'Minor units; the difference is written off (one_to_one only)' }) })])),
  date_window_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 31, description: 'The most days between the line\'s date and each entry\'s' })),
  reference: Type.Optional(Type.Union([textCondition, Type.Null()], { description: 'On the statement line\'s reference' })),
  counterparty: Type.Optional(Type.Union([plainTextCondition, Type.Null()], { description: 'On the statement line\'s counterparty name or account' })),
  description: Type.Optional(Type.Union([regexText, Type.Null()], { description: 'On the statement line\'s description' })),
})

const ruleName = text({ minLength: 1, maxLength: ruleNameLengthMax })
const rulePriority = Type.Integer({ minimum: 0, maximum: rulePriorityMax, description: 'Lower applies first; equal priorities in creation order' })
export const ruleAction = Type.Union([Type.Literal('propose'), Type.Literal('auto_match')])
export const ruleStrategy = Type.Union([Type.Literal('one_to_one'), Type.Literal('many_to_one'), Type.Literal('one_to_many')])

export const matchingRuleCreate = fields({ name: ruleName, priority: rulePriority, conditions: ruleConditions, action: ruleAction, strategy: ruleStrategy })
export const matchingRuleUpdate = fields({
  name: Type.Optional(ruleName), priority: Type.Optional(rulePriority), conditions: Type.Optional(ruleConditions), action: Type.Optional(ruleAction), strategy: Type.Optional(ruleStrategy),
}, { minProperties: 1 })
export const autoMatchRequest = fields({ dry_run: dryRun })

/** docs/API.md, Exceptions: a statement line's assignee and note; absent: unchanged, null: cleared; at least one. */
export const lineAnnotate = fields({
  assignee: Type.Optional(Type.Union([text({ minLength: 1, maxLength: lineAssigneeLengthMax, description: 'Who works on the line' }), Type.Null()])),
  note: Type.Optional(Type.Union([text({ minLength: 1, maxLength: lineNoteLengthMax }), Type.Null()])),
}, { minProperties: 1 })
