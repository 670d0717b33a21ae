/**
 * src/ledger/queries.ts on its own, over a workspace made by the real commands: every read named in the table
 * is answered by the module it names, with its parameters and the key's visibility passed through; an account
 * found or not; a refused batch item answered by the first refusal before it, if any; dry runs change nothing;
 * the sliced reads, and only they, run as generators.
 */
import t from 'tap'
import { listAccounts, findAccount, accountView } from '../../src/ledger/accounts.ts'
import { getApproval, listApprovals } from '../../src/ledger/approvals.ts'
import { autoMatchWhatIf } from '../../src/ledger/auto-match.ts'
import { balanceAt } from '../../src/ledger/balances.ts'
import { getEntry } from '../../src/ledger/entries.ts'
import { listEntries } from '../../src/ledger/entry-list.ts'
import { listExceptions } from '../../src/ledger/exceptions.ts'
import { whatIfBatch, whatIfMatch } from '../../src/ledger/match-batch.ts'
import { listMatches } from '../../src/ledger/matches.ts'
import { getMatchingRule, listMatchingRules } from '../../src/ledger/matching-rules.ts'
import type { Outcome } from '../../src/ledger/outcome.ts'
import { proposalsAnswer, runToEnd } from '../../src/ledger/proposals.ts'
import { executeQuery, executeSlicedQuery, isSlicedQuery, type QueryName, type QueryParams, type WorkspaceQuery, type WorkspaceSlicedQuery } from '../../src/ledger/queries.ts'
import { reconciliationStatus } from '../../src/ledger/reconciliation-status.ts'
import type { Visibility } from '../../src/ledger/visibility.ts'
import { listWindowEntries } from '../../src/ledger/window-entries.ts'
import { getWebhook, listWebhooks } from '../../src/ledger/webhooks.ts'
import { getWindow, listLines, listWindows, windowHistory } from '../../src/ledger/windows.ts'
import { reject } from '../../src/errors.ts'
import { stableSerialize } from '../support/state-fingerprint.ts'
import { machine, ok, posting, run } from '../support/workspace-machine.ts'

const nowMs = Date.parse('2026-12-01T12:00:00.000Z')
const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`
const conditions = { amount: 'exact', date_window_days: 3, reference: null, counterparty: null, description: null } as const

/** Two windows' worth of a workspace: entries on the bank and on the cash account, a window with lines and a match, a webhook, a rule. */
function workspace() {
  const ctx = machine(['assets:bank', 'assets:cash', 'income:sales'], nowMs)
  const bank = [100, 250, 40].map((amount, day) => ok(run(ctx, posting([['assets:bank', amount], ['income:sales', -amount]], `2026-11-0${day + 2}T10:00:00Z`))).id as string)
  ok(run(ctx, posting([['assets:cash', 70], ['income:sales', -70]], '2026-11-03T10:00:00Z')))
  const window = ok(run(ctx, { type: 'window.open', label: 'Nov', accounts: ['assets:bank'], from: '2026-11-01', to: '2026-11-30', claimed_movement: 390, statement_ref: null, tolerance: 0, time_zone: 'UTC' })).id as string
  ok(run(ctx, { type: 'window.lines.add', window, lines: [[100, '2026-11-02'], [250, '2026-11-03'], [40, '2026-11-04']].map(([amount, date]) => ({ amount: amount as number, date: date as string, reference: null, description: null })) }))
  ok(run(ctx, { type: 'match.create', window, statement_lines: ['l1'], entries: [bank[0]], strategy: 'manual', reason: null }))
  const webhook = ok(run(ctx, { type: 'webhook.create', url: 'https://example.test/hook', events: ['entry.posted'], secret })).id as string
  const rule = ok(run(ctx, { type: 'matching_rule.create', name: 'same amount', priority: 0, conditions, action: 'propose', strategy: 'one_to_one' })).id as string
  return { ctx, bank, window, webhook, rule }
}

const page = { limit: 50, cursor: null }

t.test('every read in the table is answered by its module, with its parameters and the visibility', async (t) => {
  const { ctx, bank, window, webhook, rule } = workspace()
  const state = ctx.state
  const batch = { entries: [{ lines: [{ account: 'assets:bank', amount: 5 }, { account: 'income:sales', amount: -5 }], effective_at_ms: null, description: null, metadata: null }], at_ms: nowMs, key_id: 'key_test', visibility: null, rules: 2 }
  const refused = reject('request_invalid', 'bad shape')
  const matchCommand = { type: 'match.create', window, statement_lines: ['l2'], entries: [bank[1]], strategy: 'manual', reason: null, at_ms: nowMs, key_id: 'key_test', visibility: null } as const
  const batchCommand = { type: 'match.batch', window, matches: [{ statement_lines: ['l3'], entries: [bank[2]], strategy: 'manual', reason: null }], at_ms: nowMs, key_id: 'key_test', visibility: null } as const
  // A Record over every name: a read added to the table without a case here does not compile.
  const cases: { readonly [N in QueryName]: { params: QueryParams[N]; direct: (visibility: Visibility) => Outcome } } = {
    'account.list': { params: page, direct: (v) => listAccounts(state, page, v) },
    'account.get': { params: { account: 'assets:cash' }, direct: (v) => { const a = findAccount(state, 'assets:cash', v); return a === undefined ? reject('not_found', 'No such account.') : { ok: true, status: 200, body: accountView(a) } } },
    'account.balance': { params: { account: 'assets:bank', atMs: Date.parse('2026-11-03T12:00:00Z') }, direct: (v) => balanceAt(state, 'assets:bank', Date.parse('2026-11-03T12:00:00Z'), v) },
    'account.reconciliation-status': { params: { account: 'assets:bank' }, direct: (v) => reconciliationStatus(state, 'assets:bank', v) },
    'entry.get': { params: { entry: bank[1] }, direct: (v) => getEntry(state, bank[1], v) },
    'entry.list': { params: { account: 'assets:bank', reconciliation: null, fromMs: null, toMs: null, ...page }, direct: (v) => listEntries(state, { account: 'assets:bank', reconciliation: null, fromMs: null, toMs: null, ...page }, v) },
    'entry.batch.refusal': { params: { command: batch, index: 0, refused }, direct: () => ({ ...reject('request_invalid', 'Entry 0: bad shape', [{ path: '/entries/0', message: 'bad shape' }]) }) },
    'window.list': { params: { state: null, account: null, ...page }, direct: (v) => listWindows(state, { state: null, account: null, ...page }, v) },
    'window.get': { params: { window }, direct: (v) => getWindow(state, window, v) },
    'window.lines': { params: { window, status: 'unmatched', ...page }, direct: (v) => listLines(state, window, { status: 'unmatched', ...page }, v) },
    'window.matches': { params: { window, ...page }, direct: (v) => listMatches(state, window, page, v) },
    'window.history': { params: { window, ...page }, direct: (v) => windowHistory(state, window, page, v) },
    'window.entries': { params: { window, status: 'matched', ...page }, direct: (v) => listWindowEntries(state, window, { status: 'matched', ...page }, v) },
    'match.what-if': { params: { command: matchCommand }, direct: () => whatIfMatch(state, matchCommand) },
    'match.batch.what-if': { params: { command: batchCommand }, direct: () => whatIfBatch(state, batchCommand) },
    'webhook.list': { params: page, direct: () => listWebhooks(state, 50, null) },
    'webhook.get': { params: { webhook }, direct: () => getWebhook(state, webhook) },
    'matching-rule.list': { params: page, direct: () => listMatchingRules(state, 50, null) },
    'matching-rule.get': { params: { rule }, direct: () => getMatchingRule(state, rule) },
    'approval.list': { params: { state: null, ...page }, direct: (v) => listApprovals(state, { state: null, ...page }, v) },
    'approval.get': { params: { approval: 'apr_nothing' }, direct: (v) => getApproval(state, 'apr_nothing', v) },
    'exception.list': { params: { account: null, olderThanDays: null, assignee: null, nowMs, ...page }, direct: (v) => listExceptions(state, { account: null, olderThanDays: null, assignee: null, nowMs, ...page }, v) },
  }
  const before = stableSerialize(state)
  for (const visibility of [null, ['assets:cash'], ['assets:*']] as Visibility[]) {
    for (const [name, { params, direct }] of Object.entries(cases)) {
      const answer = executeQuery(state, { name, params } as WorkspaceQuery, visibility)
      t.same(answer, direct(visibility), `${name}, visibility ${JSON.stringify(visibility)}`)
      if (visibility === null) t.equal(answer.ok, !['entry.batch.refusal', 'approval.get'].includes(name), `${name}: answered (a refusal only where one is asked for)`)
    }
  }
  t.equal(stableSerialize(state), before, 'reads, dry runs included, change nothing')
})

t.test('the answers differ as the parameters do (no read answers for another)', async (t) => {
  const { ctx, bank, window } = workspace()
  const read = (query: WorkspaceQuery, visibility: Visibility = null) => executeQuery(ctx.state, query, visibility) as Outcome & { body: any }
  t.equal(read({ name: 'account.get', params: { account: 'assets:cash' } }).body.name, 'assets:cash')
  t.equal(read({ name: 'account.get', params: { account: 'assets:nothing' } }).ok, false)
  t.match(read({ name: 'account.get', params: { account: 'assets:nothing' } }), { code: 'not_found', message: 'No such account.' })
  t.match(read({ name: 'account.get', params: { account: 'assets:bank' } }, ['assets:cash']), { code: 'not_found' }, 'an account the key cannot see is not found')
  t.equal(read({ name: 'account.get', params: { account: 'assets:bank' } }, ['assets:*']).ok, true)
  const id = read({ name: 'account.get', params: { account: 'assets:bank' } }).body.id as string
  t.equal(read({ name: 'account.get', params: { account: id } }).body.name, 'assets:bank', 'by id as by name')
  t.equal(read({ name: 'account.balance', params: { account: 'assets:bank', atMs: Date.parse('2026-11-03T12:00:00Z') } }).body.balance, 350, 'the balance at the instant asked')
  t.equal(read({ name: 'account.balance', params: { account: 'assets:bank', atMs: Date.parse('2026-11-02T09:00:00Z') } }).body.balance, 0)
  t.equal(read({ name: 'entry.get', params: { entry: bank[2] } }).body.id, bank[2])
  t.same(read({ name: 'window.lines', params: { window, status: 'unmatched', ...page } }).body.data.map((line: any) => line.id), ['l2', 'l3'])
  t.same(read({ name: 'window.lines', params: { window, status: 'matched', ...page } }).body.data.map((line: any) => line.id), ['l1'])
  t.equal(read({ name: 'window.matches', params: { window, ...page } }).body.data.length, 1)
  t.match(read({ name: 'window.get', params: { window } }, ['assets:cash']), { code: 'not_found' }, 'a window the key cannot see')
})

t.test('a refused batch item: the first refusal before it answers, else its own', async (t) => {
  const { ctx } = workspace()
  const good = { lines: [{ account: 'assets:bank', amount: 5 }, { account: 'income:sales', amount: -5 }], effective_at_ms: null, description: null, metadata: null }
  const unknown = { lines: [{ account: 'assets:nowhere', amount: 5 }, { account: 'income:sales', amount: -5 }], effective_at_ms: null, description: null, metadata: null }
  const shape = reject('request_invalid', 'Line 0 has no amount.', [{ path: '/lines/0/amount', message: 'required' }])
  const envelope = { at_ms: nowMs, key_id: 'key_test', visibility: null, rules: 2 }
  const own = executeQuery(ctx.state, { name: 'entry.batch.refusal', params: { command: { ...envelope, entries: [good, good, { refused: shape }] }, index: 2, refused: shape } }, null)
  t.match(own, { ok: false, code: 'request_invalid', message: 'Entry 2: Line 0 has no amount.', details: [{ path: '/entries/2/lines/0/amount', message: 'required' }] }, 'good items before it: the item answers, its paths under /entries/2')
  const earlier = executeQuery(ctx.state, { name: 'entry.batch.refusal', params: { command: { ...envelope, entries: [good, unknown, { refused: shape }] }, index: 2, refused: shape } }, null)
  t.equal(earlier.ok, false)
  t.not((earlier as any).code, 'request_invalid', 'the ledger refuses item 1 first')
  t.match((earlier as any).details[0].path, /^\/entries\/1/, 'the refusal names item 1')
  const first = executeQuery(ctx.state, { name: 'entry.batch.refusal', params: { command: { ...envelope, entries: [{ refused: shape }] }, index: 0, refused: shape } }, null)
  t.match(first, { code: 'request_invalid', details: [{ path: '/entries/0/lines/0/amount' }] }, 'at index 0 nothing comes before it')
})

t.test('sliced reads: only proposals and the auto-match dry run, run a slice at a time', async (t) => {
  const { ctx, window } = workspace()
  const proposals: WorkspaceSlicedQuery = { name: 'proposals', params: { window, dateToleranceDays: 3, maxGroup: 4, ...page } }
  const autoMatch: WorkspaceSlicedQuery = { name: 'match.auto.what-if', params: { window } }
  t.equal(isSlicedQuery(proposals), true)
  t.equal(isSlicedQuery(autoMatch), true)
  for (const name of ['account.list', 'window.get', 'match.what-if', 'entry.batch.refusal'] as const) t.equal(isSlicedQuery({ name, params: {} } as WorkspaceQuery), false, name)
  const before = stableSerialize(ctx.state)
  const answer = runToEnd(executeSlicedQuery(ctx.state, proposals, null)) as Outcome & { body: any }
  t.same(answer, runToEnd(proposalsAnswer(ctx.state, window, proposals.params, null)))
  t.same(answer.body.data.map((proposal: any) => proposal.statement_lines), [['l2'], ['l3']], 'the two unmatched lines proposed')
  t.same(runToEnd(executeSlicedQuery(ctx.state, autoMatch, null)), runToEnd(autoMatchWhatIf(ctx.state, window, null)))
  t.match(runToEnd(executeSlicedQuery(ctx.state, proposals, ['assets:cash'])), { code: 'not_found' }, 'the visibility is passed to the sliced read too')
  t.equal(stableSerialize(ctx.state), before)
})
