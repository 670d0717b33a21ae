/** @module Response schemas (typebox, so JSON Schema): the objects the API answers, for the OpenAPI document and the embedded API's types. */

import { Type, type Static, type TSchema } from 'typebox'
import { errorCatalogue } from '../../errors.js'
import { scopes } from '../../ledger/system.js'
import { accountCreate, accountUpdate, approvalReject, autoMatchRequest, entryPost, keyCreate, lineAnnotate, linesAdd, matchBatch, matchCreate, matchingRuleCreate, matchingRuleUpdate, matchItem, ruleAction, ruleStrategy, statementLine, webhookCreate, webhookEventType, windowOpen, windowTransition, workspaceCreate, workspaceUpdate } from './ledger.js'

const timestamp = Type.String({ format: 'date-time', description: 'RFC 3339 in UTC with milliseconds, e.g. 2026-11-22T10:00:00.000Z' })
const nullableTimestamp = Type.Union([timestamp, Type.Null()])
const date = Type.String({ format: 'date', description: 'YYYY-MM-DD' })
const amount = Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, description: 'Integer in minor units' })
const nullableText = Type.Union([Type.String(), Type.Null()])

export const account = Type.Object({
  id: Type.String({ description: 'acc_…' }),
  name: Type.String({ description: 'Segments joined by ":", e.g. assets:bank:eur' }),
  currency: Type.String({ description: 'ISO 4217; amounts on the account are in its minor unit' }),
  external_id: Type.Union([Type.String({ description: 'The bank\'s identifier of the account (IBAN, account number)' }), Type.Null()]),
  tags: Type.Array(Type.String()),
  created_at: timestamp,
})

export const entryLine = Type.Object({
  account: Type.String({ description: 'The account\'s current name' }),
  account_id: Type.String(),
  currency: Type.String({ description: 'The account\'s currency' }),
  amount,
})

export const entry = Type.Object({
  id: Type.String({ description: 'ent_…' }),
  lines: Type.Array(entryLine),
  effective_at: timestamp,
  posted_at: timestamp,
  description: nullableText,
  metadata: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()]),
  reverses: Type.Optional(Type.String({ description: 'A reversal: the id of the entry it reverses (docs/API.md, Reversals); absent otherwise' })),
  reversed_by: Type.Optional(Type.String({ description: 'A reversed entry: the id of the reversal; absent otherwise' })),
})

export const balance = Type.Object({
  account: Type.String({ description: 'acc_…' }),
  name: Type.String(),
  currency: Type.String(),
  balance: amount,
  at: timestamp,
})

const nullableAmount = (description: string) => Type.Union([Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, description }), Type.Null()])

export const windowStates = ['open', 'balanced', 'closed', 'abandoned'] as const
const windowState = Type.Union(windowStates.map((state) => Type.Literal(state)))

export const reconciliationWindow = Type.Object({
  id: Type.String({ description: 'rec_…' }),
  label: Type.String(),
  accounts: Type.Array(Type.String(), { description: 'Current account names' }),
  currency: Type.String({ description: 'The currency its accounts share' }),
  window: Type.Object({ from: date, to: date }),
  claimed_movement: amount,
  derived_movement: amount,
  residual: amount,
  opening_balance: nullableAmount('The statement\'s opening balance; null when not given (docs/API.md, "Balances")'),
  closing_balance: nullableAmount('The statement\'s closing balance; null when not given'),
  book_opening_balance: nullableAmount('The books\' balance of the window\'s accounts at the period\'s start (null only past the safe range)'),
  book_closing_balance: nullableAmount('The books\' balance of the window\'s accounts at the period\'s end (null only past the safe range)'),
  opening_difference: nullableAmount('opening_balance − book_opening_balance; null without the statement\'s figure'),
  closing_difference: nullableAmount('closing_balance − book_closing_balance; null without the statement\'s figure'),
  previous: Type.Union([Type.String({ description: 'rec_… of the latest earlier window of the same accounts not abandoned (docs/API.md, "Continuity")' }), Type.Null()]),
  gap_days: Type.Union([Type.Integer({ description: 'Whole days between the previous window\'s to and this one\'s from that neither covers (0: it follows on)' }), Type.Null()]),
  opening_matches_previous: Type.Union([Type.Boolean({ description: 'opening_balance = the previous window\'s closing_balance; null when either is unknown' }), Type.Null()]),
  matched_count: Type.Integer({ minimum: 0, description: 'Active matches' }),
  tolerance: Type.Integer({ minimum: 0 }),
  statement_ref: nullableText,
  state: windowState,
  opened_at: timestamp,
  lines_count: Type.Integer({ minimum: 0 }),
  unmatched_lines_count: Type.Integer({ minimum: 0 }),
  closed_at: nullableTimestamp,
  closed_by: Type.Union([Type.String({ description: 'key_… of the closing key' }), Type.Null()]),
  close_reason: nullableText,
  abandoned_at: nullableTimestamp,
  abandon_reason: nullableText,
  seal: Type.Union([Type.Object({
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'The lowercase hex SHA-256 of the canonical frozen content (docs/API.md, "The seal")' }),
    signature: Type.String({ description: 'Ed25519 signature of the 32 bytes of sha256 by the workspace key, base64' }),
    public_key: Type.String({ description: 'The workspace key that signed it: base64 of its raw 32 bytes (also GET /v2/workspace seal_public_key)' }),
  }, { description: 'Closed windows: the seal (docs/API.md, "The seal")' }), Type.Null()]),
  post_close_drift: Type.Union([Type.Integer({ description: 'Closed windows: the period\'s derived movement now minus the frozen one (null when that leaves the safe range)' }), Type.Null()]),
  post_close_entries: Type.Union([Type.Integer({ minimum: 0, description: 'Closed windows: how many entries were posted into the period after the close' }), Type.Null()]),
})

/** GET /v2/accounts/:id/reconciliation-status (docs/API.md, Reconciliation windows, "Continuity"). */
export const reconciliationStatus = Type.Object({
  account: Type.String({ description: 'acc_…' }),
  reconciled_through: Type.Union([date, Type.Null()], { description: 'The last day through which closed windows cover every day since the first window, with no open window or break starting by then' }),
  open_windows: Type.Array(Type.Object({ id: Type.String({ description: 'rec_…' }), from: date, to: date, state: windowState }), { description: 'Windows open or balanced, by period' }),
  gaps: Type.Array(Type.Object({ from: date, to: date }), { description: 'Runs of days between the first window and the last that no window covers' }),
  breaks: Type.Array(Type.String({ description: 'rec_…' }), { description: 'Windows whose opening balance is not the previous window\'s closing balance, by period' }),
})

export const counterparty = Type.Object({ name: nullableText, account: nullableText })

export const statementImported = Type.Object({
  data: Type.Array(reconciliationWindow, { description: 'One window per statement, in file order' }),
  statements: Type.Integer({ minimum: 1, description: 'The number of statements in the file' }),
  auto_match: Type.Optional(Type.Array(Type.Object({
    reconciliation: Type.String({ description: 'rec_… of a window this import opened' }),
    by_rule: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
  }), { description: 'With ?auto_match=true: the matches the rules made on each window this import opened, by rule' })),
})

export const addedStatementLine = Type.Object({
  id: Type.String({ description: 'l1, l2, … per window' }),
  amount,
  date,
  value_date: Type.Union([date, Type.Null()]),
  reference: nullableText,
  description: nullableText,
  counterparty: Type.Union([counterparty, Type.Null()]),
  outside_period: Type.Boolean({ description: 'Booked outside the window\'s period (a statement file\'s back-valued or late booking): kept, counted, matchable' }),
})

const lineWork = {
  assignee: Type.Union([Type.String({ description: 'Who works on the line (docs/API.md, Exceptions)' }), Type.Null()]),
  note: nullableText,
}

export const listedStatementLine = Type.Object({
  ...addedStatementLine.properties,
  match: Type.Union([Type.String({ description: 'mat_… of its active match' }), Type.Null()]),
  ...lineWork,
})

/** An item of the exceptions queue: an unmatched line of a live window, with its window and age. */
export const exceptionItem = Type.Object({
  reconciliation: Type.String({ description: 'rec_… of its window' }),
  accounts: Type.Array(Type.String(), { description: 'The window\'s accounts, by name' }),
  ...addedStatementLine.properties,
  ...lineWork,
  age_days: Type.Integer({ description: 'Whole days from the line\'s date to today in the window\'s time zone' }),
})

export const linesAdded = Type.Object({
  lines: Type.Array(addedStatementLine),
  lines_count: Type.Integer({ minimum: 0, description: 'Lines of the window after this import' }),
})

export const match = Type.Object({
  id: Type.String({ description: 'mat_…' }),
  reconciliation: Type.String({ description: 'rec_…' }),
  strategy: Type.Union([Type.Literal('amount_and_date'), Type.Literal('manual'), Type.Literal('write_off')]),
  statement_lines: Type.Array(Type.String()),
  entries: Type.Array(Type.String()),
  matched_amount: amount,
  reason: nullableText,
  residual: Type.Integer({ description: 'The window\'s residual now' }),
  state: windowState,
  created_at: timestamp,
  reversed_at: nullableTimestamp,
  adjustment_entry: Type.Optional(Type.String({ description: 'A write-off with an adjustment: the entry it posted (ent_…), also in entries (docs/API.md, Adjustments); absent otherwise' })),
})

/** What a match would leave (a dry run): its matched_amount, and the window's residual and state after it. */
export const matchFigures = Type.Object({
  matched_amount: amount,
  residual: amount,
  state: windowState,
})

export const dryRunMatch = Type.Object({ dry_run: Type.Literal(true), matched_amount: amount, residual: amount, state: windowState })

export const matchBatchDone = Type.Object({
  data: Type.Array(match, { description: 'The matches, in the order given, each as a single match answers' }),
  residual: amount,
  state: windowState,
})

export const dryRunBatch = Type.Object({
  dry_run: Type.Literal(true),
  data: Type.Array(matchFigures, { description: 'What each match would leave, in the order given' }),
  residual: amount,
  state: windowState,
})

export const matchingRule = Type.Object({
  id: Type.String({ description: 'rule_…' }),
  name: Type.String(),
  priority: Type.Integer({ minimum: 0 }),
  conditions: Type.Object({
    amount: Type.Union([Type.Literal('exact'), Type.Object({ tolerance: Type.Integer({ minimum: 0 }) })]),
    date_window_days: Type.Integer({ minimum: 0, maximum: 31 }),
    reference: Type.Union([Type.Object({ equals: Type.String() }), Type.Object({ contains: Type.String() }), Type.Object({ regex: Type.String() }), Type.Null()]),
    counterparty: Type.Union([Type.Object({ equals: Type.String() }), Type.Object({ contains: Type.String() }), Type.Null()]),
    description: Type.Union([Type.Object({ regex: Type.String() }), Type.Null()]),
  }, { description: 'Every field present: null where there is no condition' }),
  action: ruleAction,
  strategy: ruleStrategy,
  created_at: timestamp,
  updated_at: timestamp,
})

export const matchingRulePage = page(matchingRule)

const byRule = Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Matches made by each auto_match rule, by rule id (0 when it made none)' })

export const autoMatchDone = Type.Object({
  data: Type.Array(match, { description: 'The matches made, in rule order, then line (or target) order; each reason is its rule\'s name' }),
  by_rule: byRule,
  residual: amount,
  state: windowState,
})

export const dryRunAutoMatch = Type.Object({
  dry_run: Type.Literal(true),
  data: Type.Array(Type.Object({
    rule: Type.String({ description: 'rule_…' }),
    strategy: Type.Union([Type.Literal('amount_and_date'), Type.Literal('manual')]),
    matched_amount: amount,
    statement_lines: Type.Array(Type.String(), { minItems: 1 }),
    entries: Type.Array(Type.String(), { minItems: 1 }),
  })),
  by_rule: byRule,
  residual: amount,
  state: windowState,
})

export const proposal = Type.Object({
  statement_lines: Type.Array(Type.String(), { minItems: 1 }),
  entries: Type.Array(Type.String(), { minItems: 1 }),
  strategy: Type.Union([Type.Literal('amount_and_date'), Type.Literal('manual')], { description: 'manual only for a rule\'s proposal that leaves a difference (its amount tolerance)' }),
  date_tolerance_days: Type.Integer({ minimum: 0, maximum: 31 }),
  matched_amount: Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, description: 'Lines minus entries: 0 but for a rule with an amount tolerance' }),
  score: Type.Number({ minimum: 0, maximum: 1, description: 'docs/API.md gives the formula' }),
  reasons: Type.Array(Type.Union([Type.Literal('amount'), Type.Literal('same_date'), Type.Literal('near_date'), Type.Literal('reference'), Type.Literal('counterparty')])),
  rule: Type.Union([Type.Object({ id: Type.String({ description: 'rule_…' }), name: Type.String() }), Type.Null()], { description: 'The propose rule that made it (docs/API.md, Matching rules), or null' }),
})

export const windowEntry = Type.Object({
  ...entry.properties,
  amount: Type.Union([amount, Type.Null()], { description: 'The sum of its lines on the window\'s accounts (null beyond the safe range)' }),
  match: Type.Union([Type.String({ description: 'mat_… of the active match covering it' }), Type.Null()]),
})

/** An audit-trail event; besides these fields each type carries its own details (match, reason, entry, …). */
export const historyEvent = Type.Object({
  type: Type.String({ description: 'opened, lines_added, line_annotated, matched, unmatched, entry_posted, balanced, open, closed, abandoned, seal.signed (key_id system: a seal signed on upgrade)' }),
  at: timestamp,
  key_id: Type.String(),
  state: windowState,
  residual: amount,
}, { additionalProperties: true })


/** The list envelope: `{data, next_cursor}`. */
export function page<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    next_cursor: Type.Union([Type.String({ description: 'Pass as `cursor` for the next page' }), Type.Null()]),
  })
}

export const accountPage = page(account)
export const entryPage = page(entry)
export const windowPage = page(reconciliationWindow)
export const linePage = page(listedStatementLine)
export const matchPage = page(match)
export const history = page(historyEvent)
export const proposalPage = page(proposal)
export const windowEntryPage = page(windowEntry)
export const exceptionPage = page(exceptionItem)

export const workspace = Type.Object({
  id: Type.String(),
  timezone: Type.String({ description: 'IANA time zone' }),
  currency: Type.String({ description: 'ISO 4217: the currency of accounts created without one' }),
  limits: Type.Object({ writes_per_minute: Type.Integer({ minimum: 1 }), reads_per_minute: Type.Integer({ minimum: 1 }) }),
  settings: Type.Object({
    lock_closed_periods: Type.Boolean({ description: 'Every closed window\'s period is locked (docs/API.md, Period locks)' }),
    approvals: Type.Object({
      close_with_residual: Type.Boolean({ description: 'A close that leaves a non-zero residual waits for approval (docs/API.md, Approvals)' }),
      write_off_over: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'A write-off over this amount (absolute, minor units) waits for approval; null: none does' }),
    }),
  }, { additionalProperties: true, description: 'The workspace\'s settings' }),
  seal_public_key: Type.String({ description: 'The Ed25519 public key that signs the workspace\'s seals: base64 of its raw 32 bytes (docs/API.md, "The seal")' }),
  created_at: timestamp,
})

export const workspacePage = page(workspace)

export const approval = Type.Object({
  id: Type.String({ description: 'apr_…' }),
  action: Type.Union([Type.Literal('window.close'), Type.Literal('match.write_off'), Type.Literal('match.batch')]),
  state: Type.Union(['pending', 'approved', 'rejected', 'failed'].map((name) => Type.Literal(name))),
  window: Type.String({ description: 'rec_…: the window the action is on' }),
  params: Type.Object({}, { additionalProperties: true, description: 'The action\'s request: a close\'s state, reason, lock_period; a write-off\'s statement_lines, reason, adjustment' }),
  trigger: Type.Object({
    setting: Type.Union([Type.Literal('close_with_residual'), Type.Literal('write_off_over')]),
    amount: Type.Integer({ minimum: 0, description: 'The residual or write-off weighed, absolute, in minor units' }),
    threshold: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  }),
  requested_by: Type.String({ description: 'The requesting key\'s id' }),
  requested_by_name: nullableText,
  requested_at: timestamp,
  decided_by: nullableText,
  decided_by_name: nullableText,
  decided_at: nullableTimestamp,
  reason: Type.Union([Type.String({ description: 'A rejection\'s reason' }), Type.Null()]),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }, { description: 'A failed approve: the action\'s own error' }), Type.Null()]),
})
export const approvalHeld = Type.Object({ approval }, { description: '202: the action waits for approval; nothing else changed' })
export const approvalDecided = Type.Object({
  approval,
  result: Type.Optional(Type.Unknown({ description: 'An approve: the action\'s own answer (the closed window, the match)' })),
})
export const approvalPage = page(approval)

const scope = Type.Union(scopes.map((name) => Type.Literal(name)))

export const apiKey = Type.Object({
  id: Type.String({ description: 'key_…' }),
  workspace: Type.String(),
  scopes: Type.Array(scope),
  accounts: Type.Union([Type.Array(Type.String()), Type.Null()]),
  name: nullableText,
  created_at: timestamp,
  revoked_at: nullableTimestamp,
})

export const apiKeyPage = page(apiKey)

export const createdApiKey = Type.Object({
  ...apiKey.properties,
  secret: Type.String({ description: 'tu_…; shown once, only its SHA-256 is stored' }),
})

export const webhook = Type.Object({
  id: Type.String({ description: 'wh_…' }),
  url: Type.String(),
  events: Type.Array(webhookEventType),
  created_at: timestamp,
})

export const createdWebhook = Type.Object({
  ...webhook.properties,
  secret: Type.String({ description: 'whsec_<base64>: the HMAC-SHA256 key of every delivery\'s signature (the base64-decoded part after whsec_); shown only here' }),
})

export const webhookPage = page(webhook)

export const webhookDelivery = Type.Object({
  event_id: Type.String({ description: 'msg_…: the webhook-id header, the same on every attempt' }),
  event_type: webhookEventType,
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  attempts: Type.Integer({ minimum: 0 }),
  created_at: timestamp,
  last_attempt_at: nullableTimestamp,
  last_status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the last attempt; null when it got no answer' }),
  last_error: nullableText,
  next_attempt_at: Type.Union([timestamp, Type.Null()], { description: 'When a pending delivery is tried next; null once done' }),
})

export const webhookDeliveryPage = page(webhookDelivery)

/** GET /v2/reconciliations/:id/export?format=json: the audit pack (docs/API.md, "Exports"), one object. */
export const auditPack = Type.Object({
  format: Type.Literal('trueup.reconciliation-export'),
  version: Type.Literal(1),
  seal_version: Type.Integer({ minimum: 1, description: 'The version of the seal recipe (docs/API.md, "The seal")' }),
  exported_at: timestamp,
  window: reconciliationWindow,
  time_zone: Type.String({ description: 'The IANA zone of the window\'s period' }),
  accounts: Type.Array(Type.Object({ id: Type.String({ description: 'acc_…' }), name: Type.String(), currency: Type.Optional(Type.String()) }), { description: 'In the window\'s order' }),
  matched: Type.Integer({ description: 'Σ matched_amount of active matches (claimed − derived − residual)' }),
  closed_by: Type.Union([Type.Object({
    id: Type.String({ description: 'key_… of the key that closed the window' }),
    name: Type.Union([Type.String(), Type.Null()], { description: 'Its name when it closed; null: it has none, or the window was closed before names were recorded' }),
  }), Type.Null()], { description: 'Who closed the window; null unless closed' }),
  lines: Type.Array(Type.Object({
    id: Type.String(), amount, date, reference: nullableText, description: nullableText,
    match: Type.Union([Type.String({ description: 'mat_… of the active match covering it' }), Type.Null()]),
    entries: Type.Array(Type.Object({
      id: Type.String({ description: 'ent_…' }),
      effective_at: timestamp,
      effective_date: date,
      amount: Type.Union([Type.Integer({ description: 'The sum of its lines on the window\'s accounts, in minor units' }), Type.Null()]),
      description: nullableText,
    }), { description: 'The entries of that match the key can read, in the match\'s order; empty when unmatched' }),
  }), { description: 'Every statement line: the fields the seal covers, and the entries matched to it' }),
  matches: Type.Array(match, { description: 'Every match, active and reversed, as GET …/matches lists them' }),
  history: Type.Array(historyEvent, { description: 'Every event, as GET …/history lists them' }),
})

export const health = Type.Object({ status: Type.Literal('ok'), version: Type.String({ description: 'the package version of the running service' }) })

const errorCodes = Object.keys(errorCatalogue) as (keyof typeof errorCatalogue)[]

export const errorEnvelope = Type.Object({
  error: Type.Object({
    code: Type.Union(errorCodes.map((code) => Type.Literal(code))),
    message: Type.String(),
    details: Type.Optional(Type.Array(Type.Object({
      path: Type.String({ description: 'JSON pointer into the request (body, query or header)' }),
      message: Type.String(),
    }))),
  }),
})

/**
 * The component names of the OpenAPI document. The generator puts a `$ref` wherever one of these
 * very objects appears, so a schema is written once and the validators keep the plain objects.
 */
/** A batch's answer: each item the entry posted or, in per item mode, its refusal. */
export const entryBatchAnswer = Type.Object({ data: Type.Array(Type.Union([entry, errorEnvelope])) })

export const namedSchemas: readonly (readonly [string, TSchema])[] = [
  ['Account', account], ['AccountCreate', accountCreate], ['AccountUpdate', accountUpdate], ['AccountPage', accountPage],
  ['Balance', balance], ['ReconciliationStatus', reconciliationStatus],
  ['EntryLine', entryLine], ['Entry', entry], ['EntryPost', entryPost], ['EntryPage', entryPage],
  ['Reconciliation', reconciliationWindow], ['ReconciliationOpen', windowOpen], ['ReconciliationTransition', windowTransition], ['ReconciliationPage', windowPage],
  ['StatementLineInput', statementLine], ['StatementLinesAdd', linesAdd], ['StatementLine', addedStatementLine], ['StatementLinesAdded', linesAdded],
  ['ListedStatementLine', listedStatementLine], ['StatementLinePage', linePage], ['LineAnnotate', lineAnnotate], ['Exception', exceptionItem], ['ExceptionPage', exceptionPage],
  ['StatementImport', statementImported],
  ['Match', match], ['MatchCreate', matchCreate], ['MatchPage', matchPage], ['MatchItem', matchItem], ['MatchBatch', matchBatch],
  ['MatchFigures', matchFigures], ['DryRunMatch', dryRunMatch], ['MatchBatchDone', matchBatchDone], ['DryRunBatch', dryRunBatch],
  ['MatchingRule', matchingRule], ['MatchingRuleCreate', matchingRuleCreate], ['MatchingRuleUpdate', matchingRuleUpdate], ['MatchingRulePage', matchingRulePage],
  ['AutoMatch', autoMatchRequest], ['AutoMatchDone', autoMatchDone], ['DryRunAutoMatch', dryRunAutoMatch],
  ['Proposal', proposal], ['ProposalPage', proposalPage], ['WindowEntry', windowEntry], ['WindowEntryPage', windowEntryPage],
  ['HistoryEvent', historyEvent], ['History', history], ['AuditPack', auditPack],
  ['Approval', approval], ['ApprovalHeld', approvalHeld], ['ApprovalDecided', approvalDecided], ['ApprovalPage', approvalPage],
  ['Workspace', workspace], ['WorkspaceCreate', workspaceCreate], ['WorkspaceUpdate', workspaceUpdate], ['ApprovalReject', approvalReject], ['WorkspacePage', workspacePage],
  ['Webhook', webhook], ['WebhookCreate', webhookCreate], ['CreatedWebhook', createdWebhook], ['WebhookPage', webhookPage],
  ['WebhookDelivery', webhookDelivery], ['WebhookDeliveryPage', webhookDeliveryPage],
  ['ApiKey', apiKey], ['ApiKeyCreate', keyCreate], ['CreatedApiKey', createdApiKey], ['ApiKeyPage', apiKeyPage],
  ['Health', health], ['Error', errorEnvelope],
]

export type Account = Static<typeof account>
export type Entry = Static<typeof entry>
export type Balance = Static<typeof balance>
export type ReconciliationWindow = Static<typeof reconciliationWindow>
export type StatementLine = Static<typeof addedStatementLine>
export type ListedStatementLine = Static<typeof listedStatementLine>
export type LinesAdded = Static<typeof linesAdded>
export type StatementImport = Static<typeof statementImported>
export type Match = Static<typeof match>
export type HistoryEvent = Static<typeof historyEvent>
export type Workspace = Static<typeof workspace>
export type ApiKey = Static<typeof apiKey>
export type CreatedApiKey = Static<typeof createdApiKey>
export type Webhook = Static<typeof webhook>
export type CreatedWebhook = Static<typeof createdWebhook>
export type WebhookDelivery = Static<typeof webhookDelivery>
export interface Page<T> {
  readonly data: T[]
  readonly next_cursor: string | null
}
