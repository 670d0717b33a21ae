/** The request schemas (src/api/schemas/ledger.ts): their bounds, required and optional fields, and unknown fields refused at any depth. */
import t from 'tap'
import type { TSchema } from 'typebox'
import * as schemas from '../../../src/api/schemas/ledger.ts'
import { validator } from '../../../src/api/schemas/validate.ts'
import { ruleNameLengthMax, rulePriorityMax, ruleToleranceMax } from '../../../src/ledger/matching-rules.ts'
import { regexPatternLengthMax } from '../../../src/ledger/linear-regex.ts'
import { lineAssigneeLengthMax, lineNoteLengthMax } from '../../../src/ledger/exceptions.ts'
import { webhookUrlLengthMax } from '../../../src/ledger/webhooks.ts'
import { approvalReasonLengthMax } from '../../../src/ledger/approvals.ts'
import { webhookEventTypes } from '../../../src/ledger/commands.ts'
import { scopes } from '../../../src/ledger/system.ts'

/** Whether the schema accepts the value. */
function accepts(schema: TSchema) {
  const check = validator(schema)
  return (value: unknown): boolean => check(value).ok
}

const lines2 = [{ account: 'Cash', amount: 1 }, { account: 'Revenue', amount: -1 }]

t.test('amount: a safe integer either side of zero, nothing past it, no fraction', async (t) => {
  const ok = accepts(schemas.amount)
  t.ok(ok(0))
  t.ok(ok(Number.MAX_SAFE_INTEGER))
  t.ok(ok(-Number.MAX_SAFE_INTEGER))
  t.notOk(ok(Number.MAX_SAFE_INTEGER + 1))
  t.notOk(ok(-Number.MAX_SAFE_INTEGER - 1))
  t.notOk(ok(1.5))
  t.notOk(ok('1'))
})

t.test('currency: three upper-case letters', async (t) => {
  const ok = accepts(schemas.currencyCode)
  t.ok(ok('EUR'))
  for (const bad of ['eur', 'EU', 'EURO', 'E1R', '']) t.notOk(ok(bad), bad)
})

t.test('an entry: 2 to 1000 lines, unknown fields refused at the top and in a line', async (t) => {
  const ok = accepts(schemas.entryPost)
  t.ok(ok({ lines: lines2 }))
  t.notOk(ok({ lines: lines2.slice(0, 1) }), 'one line')
  t.ok(ok({ lines: Array.from({ length: 1000 }, (_, index) => ({ account: `a${index}`, amount: 0 })) }))
  t.notOk(ok({ lines: Array.from({ length: 1001 }, (_, index) => ({ account: `a${index}`, amount: 0 })) }))
  t.notOk(ok({ lines: lines2, dry_run: true }), 'an unknown field at the top')
  t.notOk(ok({ lines: [{ ...lines2[0], memo: 'x' }, lines2[1]] }), 'an unknown field in a line')
  t.notOk(ok({ lines: [{ account: '', amount: 1 }, lines2[1]] }), 'an empty account name')
  t.ok(ok({ lines: [{ account: 'a'.repeat(200), amount: 1 }, lines2[1]] }))
  t.notOk(ok({ lines: [{ account: 'a'.repeat(201), amount: 1 }, lines2[1]] }))
  t.ok(ok({ lines: lines2, description: null, metadata: null }))
  t.ok(ok({ lines: lines2, description: 'tab\tis text' }))
  t.notOk(ok({ lines: lines2, description: 'line\nbreak' }), 'a control character')
  t.notOk(ok({ lines: lines2, description: 'd'.repeat(1001) }))
})

t.test('metadata: keys of at most 40 text characters, at most 50 values of at most 500', async (t) => {
  const ok = (metadata: unknown) => accepts(schemas.entryPost)({ lines: lines2, metadata })
  t.ok(ok({}))
  t.ok(ok({ ['k'.repeat(40)]: 'v'.repeat(500) }))
  t.notOk(ok({ ['k'.repeat(41)]: 'v' }), 'a key of 41')
  t.notOk(ok({ 'a\u0000b': 'v' }), 'a key with a control character')
  t.notOk(ok({ k: 'v'.repeat(501) }))
  t.notOk(ok({ k: 1 }), 'values are strings')
  t.ok(ok(Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`k${index}`, 'v']))))
  t.notOk(ok(Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`k${index}`, 'v']))))
})

t.test('a reversal may be empty; a batch holds 1 to entryBatchSizeMax items', async (t) => {
  t.ok(accepts(schemas.entryReverse)({}))
  t.notOk(accepts(schemas.entryReverse)({ amount: 1 }))
  t.equal(schemas.entryBatchSizeMax, 8190)
  const outer = accepts(schemas.entryBatchOuter)
  t.notOk(outer({ entries: [] }))
  t.ok(outer({ entries: [1, 'anything'] }), 'the outer check leaves the items to be checked one by one')
  t.ok(outer({ entries: new Array(8190).fill(null), atomic: false }))
  t.notOk(outer({ entries: new Array(8191).fill(null) }))
  t.notOk(outer({ entries: [null], atomic: 'yes' }))
  const batch = accepts(schemas.entryBatch)
  t.ok(batch({ entries: [{ lines: lines2 }] }))
  t.notOk(batch({ entries: [{ lines: lines2.slice(1) }] }), 'the published batch checks its items')
})

t.test('a window: 1 to 100 accounts, a non-negative tolerance, nullable balances', async (t) => {
  const ok = accepts(schemas.windowOpen)
  const window = { label: 'Nov', accounts: ['Cash'], window: { from: '2026-11-01', to: '2026-11-30' }, claimed_movement: 0 }
  t.ok(ok(window))
  t.ok(ok({ ...window, opening_balance: null, closing_balance: 5, statement_ref: null, tolerance: 0 }))
  t.notOk(ok({ ...window, accounts: [] }))
  t.notOk(ok({ ...window, accounts: Array.from({ length: 101 }, (_, index) => `a${index}`) }))
  t.notOk(ok({ ...window, tolerance: -1 }))
  t.notOk(ok({ ...window, window: { from: '2026-11-01', to: '2026-11-30', at: 'x' } }), 'unknown field in the nested window')
  t.notOk(ok({ ...window, window: { from: '2026-11-01' } }))
})

t.test('statement lines: 1 to 10,000, each with an amount and a date; counterparty nested and strict', async (t) => {
  const ok = accepts(schemas.linesAdd)
  const line = { amount: 5, date: '2026-11-27' }
  t.ok(ok({ lines: [line] }))
  t.notOk(ok({ lines: [] }))
  t.ok(ok({ lines: new Array(10_000).fill(line) }))
  t.notOk(ok({ lines: new Array(10_001).fill(line) }))
  t.notOk(ok({ lines: [{ amount: 5 }] }), 'the date is required')
  t.ok(ok({ lines: [{ ...line, reference: null, description: null, value_date: null, counterparty: null }] }))
  t.ok(ok({ lines: [{ ...line, counterparty: { name: 'ACME', account: null } }] }))
  t.notOk(ok({ lines: [{ ...line, counterparty: { iban: 'x' } }] }))
  t.notOk(ok({ lines: [{ ...line, reference: 'r'.repeat(501) }] }))
})

t.test('a match: strategy from the three, date tolerance 0 to 31, dry_run only at the top', async (t) => {
  const ok = accepts(schemas.matchCreate)
  const match = { statement_lines: ['sl_1'], entries: [], strategy: 'manual' }
  t.ok(ok(match))
  t.notOk(ok({ ...match, statement_lines: [] }), 'at least one line')
  t.notOk(ok({ ...match, statement_lines: [''] }), 'an empty id')
  t.notOk(ok({ ...match, strategy: 'fuzzy' }))
  t.ok(ok({ ...match, date_tolerance_days: 31 }))
  t.notOk(ok({ ...match, date_tolerance_days: 32 }))
  t.notOk(ok({ ...match, date_tolerance_days: -1 }))
  t.notOk(ok({ ...match, reason: '' }), 'a reason is not empty')
  t.ok(ok({ ...match, strategy: 'write_off', adjustment: { account: 'Fees' }, dry_run: true }))
  t.notOk(ok({ ...match, adjustment: { account: 'Fees', amount: 1 } }))
  const batch = accepts(schemas.matchBatch)
  t.ok(batch({ matches: [match], dry_run: false }))
  t.notOk(batch({ matches: [{ ...match, dry_run: true }] }), 'an item\'s dry_run is refused, not ignored')
  t.notOk(batch({ matches: [] }))
  t.ok(batch({ matches: new Array(1000).fill(match) }))
  t.notOk(batch({ matches: new Array(1001).fill(match) }))
})

t.test('workspace create and update: id pattern, limits 1 to 100,000,000, settings strict', async (t) => {
  const create = accepts(schemas.workspaceCreate)
  t.ok(create({ id: 'A-z_0', timezone: 'UTC' }))
  t.notOk(create({ id: 'ws.1', timezone: 'UTC' }))
  t.notOk(create({ id: 'ws', timezone: 'z'.repeat(65) }))
  t.notOk(create({ id: 'ws' }))
  const update = accepts(schemas.workspaceUpdate)
  t.ok(update({}))
  t.ok(update({ limits: { writes_per_minute: 100_000_000 } }))
  t.notOk(update({ limits: { writes_per_minute: 0 } }))
  t.notOk(update({ limits: { reads_per_minute: 1.5 } }))
  t.ok(update({ settings: { approvals: { write_off_over: Number.MAX_SAFE_INTEGER } } }))
  t.notOk(update({ settings: { approvals: { write_off_over: -1 } } }))
  t.notOk(update({ settings: { approvals: { extra: true } } }), 'unknown at the third level')
})

t.test('a key: known scopes only, accounts up to 1000 names of 201, a name of 200', async (t) => {
  const ok = accepts(schemas.keyCreate)
  t.ok(ok({ workspace: 'ws', scopes: [] }))
  t.ok(ok({ workspace: 'ws', scopes: [...scopes, ...scopes] }), 'twice each is within the bound')
  t.notOk(ok({ workspace: 'ws', scopes: [...scopes, ...scopes, scopes[0]] }))
  t.notOk(ok({ workspace: 'ws', scopes: ['admin'] }))
  t.ok(ok({ workspace: 'ws', scopes: [], accounts: ['a'.repeat(201)], name: null }))
  t.notOk(ok({ workspace: 'ws', scopes: [], accounts: ['a'.repeat(202)] }))
  t.notOk(ok({ workspace: 'ws', scopes: [], accounts: [''] }))
  t.notOk(ok({ workspace: 'ws', scopes: [], name: 'n'.repeat(201) }))
})

t.test('a webhook: a URL up to its bound, known events each once', async (t) => {
  const ok = accepts(schemas.webhookCreate)
  t.ok(ok({ url: 'https://x', events: ['entry.posted'] }))
  t.ok(ok({ url: 'h'.repeat(webhookUrlLengthMax), events: [...webhookEventTypes] }))
  t.notOk(ok({ url: 'h'.repeat(webhookUrlLengthMax + 1), events: ['entry.posted'] }))
  t.notOk(ok({ url: 'https://x', events: [] }))
  t.notOk(ok({ url: 'https://x', events: ['entry.posted', 'entry.posted'] }), 'an event twice')
  t.notOk(ok({ url: 'https://x', events: ['entry.deleted'] }))
})

t.test('matching rules: bounds of name, priority, tolerance, pattern; one condition object at least', async (t) => {
  const ok = accepts(schemas.matchingRuleCreate)
  const rule = { name: 'r', priority: 0, conditions: {}, action: 'propose', strategy: 'one_to_one' }
  t.ok(ok(rule))
  t.ok(ok({ ...rule, name: 'n'.repeat(ruleNameLengthMax), priority: rulePriorityMax }))
  t.notOk(ok({ ...rule, name: 'n'.repeat(ruleNameLengthMax + 1) }))
  t.notOk(ok({ ...rule, priority: rulePriorityMax + 1 }))
  t.notOk(ok({ ...rule, action: 'ignore' }))
  t.ok(ok({ ...rule, conditions: { amount: { tolerance: ruleToleranceMax }, date_window_days: 31, reference: { regex: 'r'.repeat(regexPatternLengthMax) } } }))
  t.notOk(ok({ ...rule, conditions: { amount: { tolerance: ruleToleranceMax + 1 } } }))
  t.notOk(ok({ ...rule, conditions: { reference: { regex: 'r'.repeat(regexPatternLengthMax + 1) } } }))
  t.notOk(ok({ ...rule, conditions: { reference: {} } }), 'a text condition names one of its fields')
  t.notOk(ok({ ...rule, conditions: { counterparty: { regex: 'x' } } }), 'no regex on the counterparty')
  t.notOk(ok({ ...rule, conditions: { description: { contains: 'x' } } }), 'only a regex on the description')
  const update = accepts(schemas.matchingRuleUpdate)
  t.notOk(update({}), 'an update names a field')
  t.ok(update({ priority: 3 }))
  t.ok(accepts(schemas.autoMatchRequest)({}))
})

t.test('annotations and refusals: at least one field; bounds from the ledger', async (t) => {
  const annotate = accepts(schemas.lineAnnotate)
  t.notOk(annotate({}))
  t.ok(annotate({ assignee: null }))
  t.ok(annotate({ assignee: 'a'.repeat(lineAssigneeLengthMax), note: 'n'.repeat(lineNoteLengthMax) }))
  t.notOk(annotate({ note: 'n'.repeat(lineNoteLengthMax + 1) }))
  t.notOk(annotate({ assignee: '' }))
  const reject = accepts(schemas.approvalReject)
  t.notOk(reject({ reason: '' }))
  t.ok(reject({ reason: 'r'.repeat(approvalReasonLengthMax) }))
  t.notOk(reject({ reason: 'r'.repeat(approvalReasonLengthMax + 1) }))
  const transition = accepts(schemas.windowTransition)
  t.ok(transition({ state: 'closed', lock_period: true, reason: null }))
  t.notOk(transition({ state: 'closed', lock: true }))
})
