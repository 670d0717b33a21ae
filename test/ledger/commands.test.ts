/**
 * The commands' own definitions (src/ledger/commands.ts): the list of command types every part of the ledger is
 * checked against, the stop on a type it does not know, the webhook event types, and the two numbers the edge
 * stamps or bounds commands with (the entry rules version, a match batch's items). What each command does is
 * tested by its own module's test.
 */
import t from 'tap'
import {
  entryRulesVersion, matchBatchItemsMax, unknownCommand, webhookEventTypes, workspaceCommandTypes, type WorkspaceCommand,
} from '../../src/ledger/commands.ts'
import { stableSerialize } from '../support/state-fingerprint.ts'
import { machine, ok, run } from '../support/workspace-machine.ts'

const atMs = Date.parse('2026-11-27T12:00:00.000Z')

t.test('every command type is listed once, and the ledger has a way to apply each', async (t) => {
  t.equal(new Set(workspaceCommandTypes).size, workspaceCommandTypes.length, 'no type twice')
  t.equal(workspaceCommandTypes.length, 21)
  for (const type of workspaceCommandTypes) {
    t.match(type, /^[a-z_]+(\.[a-z_]+)+$/, `${type}: a dotted wire name`)
    // An empty command of a listed type is refused or answered by its own code, never reported as an unknown type.
    const ctx = machine([], atMs)
    let thrown: unknown = null
    try {
      run(ctx, { type } as never)
    } catch (error) {
      thrown = error
    }
    t.notMatch(String(thrown), /unknown command type/, `${type}: known to the ledger`)
  }
})

t.test('unknownCommand stops with the type it was given, whatever that is', async (t) => {
  t.throws(() => unknownCommand({ type: 'account.delete' } as never), { message: 'unknown command type "account.delete"' })
  t.throws(() => unknownCommand({ type: 7 } as never), { message: 'unknown command type 7' })
  t.throws(() => unknownCommand({} as never), { message: 'unknown command type undefined' }, 'a record without a type')
  t.throws(() => unknownCommand({ type: 'a"b' } as never), { message: 'unknown command type "a\\"b"' }, 'quoted, so a damaged record reads plainly')
})

t.test('a command of a type not listed stops the ledger and changes nothing', async (t) => {
  const ctx = machine(['assets:bank'], atMs)
  const before = stableSerialize(ctx.state)
  for (const type of ['account.delete', 'entry.posted', '', '__proto__']) {
    t.notOk((workspaceCommandTypes as readonly string[]).includes(type))
    t.throws(() => run(ctx, { type } as never), { message: `unknown command type ${JSON.stringify(type)}` }, JSON.stringify(type))
  }
  t.equal(stableSerialize(ctx.state), before)
})

t.test('the webhook event types: each is subscribable, anything else is refused by name', async (t) => {
  t.equal(new Set(webhookEventTypes).size, webhookEventTypes.length, 'no type twice')
  t.ok(webhookEventTypes.includes('reconciliation.drifted'), 'drift is an event (docs/API.md, Exports)')
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`
  for (const event of webhookEventTypes) {
    const ctx = machine([], atMs)
    const body = ok(run(ctx, { type: 'webhook.create', url: 'https://example.test/hook', events: [event], secret }))
    t.same(body.events, [event], event)
  }
  const ctx = machine([], atMs)
  const all = ok(run(ctx, { type: 'webhook.create', url: 'https://example.test/hook', events: [...webhookEventTypes].reverse(), secret }))
  t.same(all.events, [...webhookEventTypes], 'kept in the order of webhookEventTypes, whatever order they were given in')
  for (const event of ['entry.created', 'Entry.posted', 'match', '']) {
    const outcome = run(machine([], atMs), { type: 'webhook.create', url: 'https://example.test/hook', events: [event], secret })
    t.equal(outcome.ok ? 'ok' : outcome.code, 'request_invalid', JSON.stringify(event))
  }
})

t.test('the entry rules version the edge stamps is the newest: it refuses an entry kept on one account', async (t) => {
  const ctx = machine(['assets:bank', 'income:sales'], atMs)
  const oneAccount = [{ account: 'assets:bank', amount: 5 }, { account: 'assets:bank', amount: -5 }]
  const base = { type: 'entry.post', lines: oneAccount, effective_at_ms: null, description: null, metadata: null } as const
  const newest = run(ctx, { ...base, rules: entryRulesVersion })
  t.equal(newest.ok ? 'ok' : newest.code, 'request_invalid')
  const older = run(ctx, { ...base, rules: entryRulesVersion - 1 })
  t.equal(older.ok && older.status, 201, 'the version before accepted it')
  const moves = run(ctx, { ...base, lines: [{ account: 'assets:bank', amount: 5 }, { account: 'income:sales', amount: -5 }], rules: entryRulesVersion })
  t.equal(moves.ok && moves.status, 201)
})

// One over the bound is a command the edge never builds; the ledger's assert on it is not run here: node's assert
// message, made from the source under tap's loader, takes about half a minute.
t.test('a match batch of matchBatchItemsMax items is a command the ledger answers', async (t) => {
  t.ok(Number.isSafeInteger(matchBatchItemsMax) && matchBatchItemsMax >= 1)
  const item = { statement_lines: ['stl_x'], entries: [], strategy: 'write_off', reason: 'fee' } as const
  const ctx = machine([], atMs)
  const before = stableSerialize(ctx.state)
  const atMax = run(ctx, { type: 'match.batch', window: 'rec_x', matches: Array(matchBatchItemsMax).fill(item) })
  t.equal(atMax.ok ? 'ok' : atMax.code, 'not_found', 'at the bound: answered (no such reconciliation)')
  t.equal(stableSerialize(ctx.state), before)
})

t.test('the type-only parts compile to commands the ledger takes as they are logged', async (t) => {
  const command: WorkspaceCommand = { type: 'account.create', name: 'assets:bank', tags: [], at_ms: atMs, key_id: 'key_test', visibility: null }
  const ctx = machine([], atMs)
  const body = ok(run(ctx, command))
  t.equal(body.name, 'assets:bank')
  t.equal(body.currency, 'USD', 'a record logged before currencies reads as the default currency')
})
