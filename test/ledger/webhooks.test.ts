/**
 * Webhooks in the pure state machine (src/ledger/webhooks.ts, events.ts): subscriptions as workspace state,
 * and the events each accepted command emits, derived deterministically from command and state, no disk,
 * no clock, no server. Routing by event type and by the visibility of the subscribing key.
 */
import t from 'tap'
import { webhookEventTypes, type WorkspaceCommand } from '../../src/ledger/commands.ts'
import type { Outcome } from '../../src/ledger/outcome.ts'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.ts'
import type { Visibility } from '../../src/ledger/visibility.ts'
import { findWebhook, listWebhooks, subscribersOf, webhookSubscriptionsMax } from '../../src/ledger/webhooks.ts'
import { executeWorkspace } from '../../src/ledger/workspace.ts'

const nowMs = Date.parse('2026-12-01T12:00:00.000Z')
const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`
type CommandBody = WorkspaceCommand extends infer C ? (C extends WorkspaceCommand ? Omit<C, 'at_ms' | 'key_id' | 'visibility'> : never) : never

interface Ctx { readonly state: WorkspaceState; visibility: Visibility; atMs: number }

function run(ctx: Ctx, command: CommandBody): Outcome {
  return executeWorkspace(ctx.state, { at_ms: ctx.atMs, key_id: 'key_test', visibility: ctx.visibility, ...command } as WorkspaceCommand)
}

function ok(outcome: Outcome): any {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.code}: ${outcome.message}`)
  return outcome.body
}

function setup(): Ctx {
  const ctx: Ctx = { state: createWorkspaceState('ws', 'abcdef'), visibility: null, atMs: nowMs }
  for (const name of ['assets:bank', 'assets:cash', 'income:sales']) ok(run(ctx, { type: 'account.create', name, tags: [] }))
  return ctx
}

const subscribe = (ctx: Ctx, events: string[] = [...webhookEventTypes], url = 'https://example.test/hook') => run(ctx, { type: 'webhook.create', url, events, secret })
const deposit = (amount: number, effectiveAt = '2026-11-10T10:00:00Z'): CommandBody => ({
  type: 'entry.post', lines: [{ account: 'assets:bank', amount }, { account: 'income:sales', amount: -amount }], effective_at_ms: Date.parse(effectiveAt), description: null, metadata: null,
})
const openNovember = (claimed: number, accounts = ['assets:bank']): CommandBody => ({
  type: 'window.open', label: 'Nov', accounts, from: '2026-11-01', to: '2026-11-30', claimed_movement: claimed, statement_ref: null, tolerance: 0, time_zone: 'UTC',
})
const typesOf = (outcome: Outcome) => (outcome.ok ? (outcome.events ?? []).map((event) => event.type) : ['rejected'])

/** One script through every event kind; returns each command's outcome. */
function script(ctx: Ctx): Outcome[] {
  const outcomes: Outcome[] = []
  const step = (command: CommandBody) => {
    const outcome = run(ctx, command)
    outcomes.push(outcome)
    ctx.atMs += 1000
    return ok(outcome)
  }
  ok(subscribe(ctx))
  step(deposit(500))
  const window = step(openNovember(700))
  step({ type: 'window.lines.add', window: window.id, lines: [{ amount: 200, date: '2026-11-11', reference: null, description: null }] })
  const match = step({ type: 'match.create', window: window.id, statement_lines: ['l1'], entries: [], strategy: 'write_off', reason: 'fee' })
  step({ type: 'match.reverse', window: window.id, match: match.id })
  step({ type: 'match.create', window: window.id, statement_lines: ['l1'], entries: [], strategy: 'write_off', reason: 'fee' })
  step({ type: 'window.transition', window: window.id, state: 'closed', reason: null })
  const later = step({ ...openNovember(300, ['assets:cash']), from: '2026-10-01', to: '2026-10-31' } as CommandBody)
  step({ type: 'window.lines.add', window: later.id, lines: [{ amount: 100, date: '2026-10-02', reference: null, description: null }] })
  step({ type: 'match.create', window: later.id, statement_lines: ['l1'], entries: [], strategy: 'write_off', reason: 'rounding' })
  step({ type: 'entry.post', lines: [{ account: 'assets:cash', amount: 200 }, { account: 'assets:bank', amount: -200 }], effective_at_ms: Date.parse('2026-10-15T00:00:00Z'), description: null, metadata: null })
  step({ type: 'window.transition', window: later.id, state: 'abandoned', reason: 'done' })
  return outcomes
}

t.test('each command emits its events, in order, with the answer as data and the command time as timestamp', async (t) => {
  const ctx = setup()
  const outcomes = script(ctx)
  t.same(outcomes.map(typesOf), [
    ['entry.posted'],
    ['reconciliation.opened'],
    [],
    ['match.created', 'reconciliation.balanced'],
    ['match.reversed'],
    ['match.created', 'reconciliation.balanced'],
    ['reconciliation.closed'],
    ['reconciliation.opened'],
    [],
    ['match.created'],
    ['entry.posted', 'reconciliation.balanced'],
    ['reconciliation.abandoned'],
  ])
  outcomes.forEach((outcome, index) => {
    if (!outcome.ok || outcome.events === undefined) return
    t.same(outcome.events[0].data, outcome.body, `#${index}: the first event's data is the command's answer`)
    for (const event of outcome.events) t.equal(event.timestamp, new Date(nowMs + index * 1000).toISOString(), `#${index} ${event.type}: the command's at_ms`)
  })
  const balancedByPosting = outcomes[10].ok ? outcomes[10].events![1] : undefined
  t.match(balancedByPosting, { type: 'reconciliation.balanced', data: { state: 'balanced', residual: 0, derived_movement: 200 }, accountNames: ['assets:cash'] })
  t.same(outcomes[0].ok && outcomes[0].events![0].accountNames, ['assets:bank', 'income:sales'], 'an entry concerns the accounts of its lines')
})

t.test('deterministic: the same commands on the same state give equal outcomes and events', async (t) => {
  const first = script(setup())
  const second = script(setup())
  t.same(JSON.parse(JSON.stringify(second)), JSON.parse(JSON.stringify(first)))
})

t.test('no subscription, no events (and nothing computed for them)', async (t) => {
  const ctx = setup()
  const outcome = run(ctx, deposit(5))
  t.ok(outcome.ok && outcome.events === undefined)
  ok(subscribe(ctx, ['match.created']))
  t.same(typesOf(run(ctx, deposit(6))), ['entry.posted'], 'with a subscription the core emits every event; the actor routes by type')
  t.same(typesOf(run(ctx, { type: 'account.create', name: 'assets:other', tags: [] })), [], 'commands without an event kind emit none')
})

t.test('subscriptions: create, ids, validation, the cap, delete, routing', async (t) => {
  const ctx = setup()
  const created = ok(subscribe(ctx, ['match.reversed', 'entry.posted']))
  t.match(created, { id: 'wh_abcdef000000001', url: 'https://example.test/hook', events: ['entry.posted', 'match.reversed'], secret, created_at: '2026-12-01T12:00:00.000Z' })
  t.notOk('secret' in ok(listWebhooks(ctx.state, 10, null)).data[0], 'the list leaves the secret out')
  for (const [label, command, path] of [
    ['ftp', { url: 'ftp://example.test/x', events: ['entry.posted'] }, '/url'],
    ['relative', { url: '/x', events: ['entry.posted'] }, '/url'],
    ['too long', { url: `https://example.test/${'x'.repeat(2048)}`, events: ['entry.posted'] }, '/url'],
    ['no events', { url: 'https://example.test/x', events: [] }, '/events'],
    ['unknown event', { url: 'https://example.test/x', events: ['entry.posted', 'nope'] }, '/events/1'],
  ] as const) {
    const outcome = run(ctx, { type: 'webhook.create', secret, ...command } as CommandBody)
    t.match(outcome, { ok: false, code: 'request_invalid', details: [{ path }] }, label)
  }
  t.match(run(ctx, { type: 'webhook.create', url: 'https://example.test/x', events: ['entry.posted'], secret: 'plain' }), { ok: false, code: 'request_invalid' }, 'a secret that is not whsec_')
  for (let i = 1; i < webhookSubscriptionsMax; i++) ok(subscribe(ctx, ['entry.posted']))
  t.match(subscribe(ctx), { ok: false, code: 'request_invalid' }, `the ${webhookSubscriptionsMax + 1}st is refused`)
  t.match(run(ctx, { type: 'webhook.delete', webhook: 'wh_zzzzzz000000001' }), { ok: false, code: 'not_found' }, 'an id of another workspace')
  t.same(ok(run(ctx, { type: 'webhook.delete', webhook: created.id })), null)
  t.equal(findWebhook(ctx.state, created.id), undefined)
  t.match(run(ctx, { type: 'webhook.delete', webhook: created.id }), { ok: false, code: 'not_found' }, 'a second delete')
  const next = ok(subscribe(ctx))
  t.equal(next.id, 'wh_abcdef00000001f', 'ids are never reused after a delete (seq 51 in base 36)')
})

t.test('routing: by event type and by what the subscribing key can see', async (t) => {
  const ctx = setup()
  const all = ok(subscribe(ctx))
  const matchesOnly = ok(subscribe(ctx, ['match.created']))
  ctx.visibility = ['assets:*']
  const assets = ok(subscribe(ctx, ['entry.posted']))
  const ids = (type: any, accounts: string[]) => subscribersOf(ctx.state, type, accounts).map((subscription) => subscription.id)
  t.same(ids('entry.posted', ['assets:bank', 'income:sales']), [all.id], 'an entry with an income line: not for the assets-only key')
  t.same(ids('entry.posted', ['assets:bank', 'assets:cash']), [all.id, assets.id])
  t.same(ids('match.created', ['assets:bank']), [all.id, matchesOnly.id])
})
