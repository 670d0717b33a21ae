/**
 * Live updates' source (src/ledger/changes.ts): for every command type, enumerated from the commands
 * module so a new type is covered as soon as it exists, an accepted command reports every window whose
 * object it changed and every account whose balance answer it changed: what a subscriber is sent.
 * Checked by comparing each window's view and each account's balance before and after (issue 24, item 7:
 * a match batch reported nothing, so its window's subscribers were never told).
 */
import t from 'tap'
import { balanceAt } from '../../src/ledger/balances.ts'
import { changesOf } from '../../src/ledger/command-table.ts'
import { workspaceCommandTypes, type WorkspaceCommand } from '../../src/ledger/commands.ts'
import { windowView } from '../../src/ledger/windows.ts'
import { createWorkspaceState } from '../../src/ledger/state.ts'
import { sha256Hex } from '../../src/exports/seal-hash.ts'
import { ed25519Signer, newSealKeyPair } from '../../src/exports/seal-signature.ts'
import { executeWorkspace } from '../../src/ledger/workspace.ts'
import { ok, posting, run, type CommandBody, type Machine } from '../support/workspace-machine.ts'

const nowMs = Date.parse('2026-12-05T12:00:00.000Z')
const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`

interface World {
  readonly ctx: Machine
  /** Window ids by name: `oct` closed, `nov` live with lines l1..l3 (l3 written off), `sep` abandoned. */
  readonly windows: { readonly oct: string; readonly nov: string; readonly sep: string }
  readonly novEntry: string
  readonly writeOff: string
  readonly webhook: string
  readonly rule: string
  /** A pending approval of a write-off of nov's l2, requested by another key than the scenarios'. */
  readonly approval: string
}

/** One workspace with a window in each state on assets:bank, so every kind of change has something to show on. */
function world(): World {
  // Sealed with node:crypto's hash and signer, as the service seals: the closed window has a seal to sign (seal.key).
  const ctx: Machine = { state: createWorkspaceState('ws', 'abcdef', sha256Hex, ed25519Signer), visibility: null, atMs: nowMs }
  for (const name of ['assets:bank', 'income:sales', 'assets:cash']) ok(run(ctx, { type: 'account.create', name, tags: [], currency: 'EUR', external_id: name === 'assets:cash' ? 'CASH-1' : null }))
  const open = (label: string, from: string, to: string, claimed: number) => ok(run(ctx, { type: 'window.open', label, accounts: ['assets:bank'], from, to, claimed_movement: claimed, statement_ref: null, tolerance: 0, time_zone: 'UTC' })).id as string
  const sep = open('Sep', '2026-09-01', '2026-09-30', 0)
  ok(run(ctx, { type: 'window.transition', window: sep, state: 'abandoned', reason: 'test' }))
  const oct = open('Oct', '2026-10-01', '2026-10-31', 0)
  ok(run(ctx, { type: 'window.transition', window: oct, state: 'closed', reason: 'quiet month' }))
  const novEntry = ok(run(ctx, posting([['assets:bank', 40], ['income:sales', -40]], '2026-11-10T00:00:00Z'))).id as string
  const nov = open('Nov', '2026-11-01', '2026-11-30', 100)
  ok(run(ctx, { type: 'window.lines.add', window: nov, lines: [40, 60, 3].map((amount) => ({ amount, date: '2026-11-10', reference: null, description: null })) }))
  const writeOff = ok(run(ctx, { type: 'match.create', window: nov, statement_lines: ['l3'], entries: [], strategy: 'write_off', reason: 'fee' })).id as string
  const webhook = ok(run(ctx, { type: 'webhook.create', url: 'https://example.test/hook', events: ['entry.posted'], secret })).id as string
  const rule = ok(run(ctx, { type: 'matching_rule.create', ...ruleFields })).id as string
  const held = executeWorkspace(ctx.state, {
    type: 'match.create', at_ms: nowMs, key_id: 'key_maker', visibility: null, window: nov, statement_lines: ['l2'], entries: [], strategy: 'write_off', reason: 'held',
    approvals: { close_with_residual: false, write_off_over: 10 },
  })
  const approval = (ok(held) as { approval: { id: string } }).approval.id
  return { ctx, windows: { oct, nov, sep }, novEntry, writeOff, webhook, rule, approval }
}

const ruleFields = {
  name: 'same amount', priority: 1, action: 'auto_match', strategy: 'one_to_one',
  conditions: { amount: 'exact', date_window_days: 3, reference: null, counterparty: null, description: null },
} as const

type CommandOf<T extends WorkspaceCommand['type']> = Extract<CommandBody, { type: T }>

interface Scenario<T extends WorkspaceCommand['type']> {
  readonly name: string
  readonly command: (world: World) => CommandOf<T>
  /** The windows of the world whose object the command changes: asserted, so a scenario cannot pass by changing nothing. */
  readonly windows: readonly (keyof World['windows'])[]
}

const sale = (account: string, effectiveAt: string) => posting([[account, 5], ['income:sales', -5]], effectiveAt) as CommandOf<'entry.post'>
const line = (amount: number, date = '2026-11-12') => ({ amount, date, reference: null, description: null })

/** Every command type has its scenarios: a type missing here is a compile error (and the test below fails). */
const scenarios: { readonly [T in WorkspaceCommand['type']]: readonly Scenario<T>[] } = {
  'account.create': [{ name: 'a new account', windows: [], command: () => ({ type: 'account.create', name: 'assets:new', tags: [], currency: 'EUR' }) }],
  'account.update': [
    { name: 'a rename shows in every window of the account', windows: ['sep', 'oct', 'nov'], command: () => ({ type: 'account.update', account: 'assets:bank', name: 'assets:checking' }) },
    { name: 'new tags', windows: [], command: () => ({ type: 'account.update', account: 'assets:bank', tags: ['x'] }) },
  ],
  'entry.post': [
    { name: 'a posting into the live window', windows: ['nov'], command: () => sale('assets:bank', '2026-11-12T00:00:00Z') },
    // The live November window's book balances move with any posting before its end.
    { name: 'a posting into the closed period (drift)', windows: ['oct', 'nov'], command: () => sale('assets:bank', '2026-10-12T00:00:00Z') },
    { name: 'a posting into the abandoned period', windows: ['nov'], command: () => sale('assets:bank', '2026-09-12T00:00:00Z') },
    { name: 'a posting outside every window', windows: [], command: () => sale('assets:cash', '2026-11-12T00:00:00Z') },
  ],
  'entry.batch': [{
    name: 'a batch into the live and the closed period', windows: ['oct', 'nov'],
    command: () => ({ type: 'entry.batch', atomic: true, rules: 2, entries: ['2026-10-12', '2026-11-12'].map((day) => ({ lines: [{ account: 'assets:bank', amount: 2 }, { account: 'income:sales', amount: -2 }], effective_at_ms: Date.parse(`${day}T00:00:00Z`), description: null, metadata: null })) }),
  }],
  'entry.reverse': [
    { name: 'a reversal into the live window', windows: ['nov'], command: (w) => ({ type: 'entry.reverse', entry: w.novEntry, effective_at_ms: Date.parse('2026-11-13T00:00:00Z'), description: null }) },
    { name: 'a reversal into the closed period (drift)', windows: ['oct', 'nov'], command: (w) => ({ type: 'entry.reverse', entry: w.novEntry, effective_at_ms: Date.parse('2026-10-13T00:00:00Z'), description: null }) },
  ],
  'window.open': [{ name: 'a new window', windows: [], command: () => ({ type: 'window.open', label: 'Cash', accounts: ['assets:cash'], from: '2026-11-01', to: '2026-11-30', claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' }) }],
  'window.lines.add': [{ name: 'lines', windows: ['nov'], command: (w) => ({ type: 'window.lines.add', window: w.windows.nov, lines: [line(7)] }) }],
  'statements.import': [{
    name: 'a statement opens a new window', windows: [],
    command: () => ({ type: 'statements.import', time_zone: 'UTC', statements: [{ account: 'CASH-1', currency: 'EUR', statement_ref: 'S1', label: 'S1', from: '2026-12-01', to: '2026-12-03', claimed_movement: 5, fingerprint: 'f1', lines: [line(5, '2026-12-02')] }] }),
  }],
  'match.create': [
    { name: 'a match', windows: ['nov'], command: (w) => ({ type: 'match.create', window: w.windows.nov, statement_lines: ['l1'], entries: [w.novEntry], strategy: 'amount_and_date', reason: null }) },
    {
      name: 'a write-off with an adjustment (its entry moves both accounts)', windows: ['nov'],
      command: (w) => ({ type: 'match.create', window: w.windows.nov, statement_lines: ['l2'], entries: [], strategy: 'write_off', reason: 'fee', adjustment: { account: 'assets:cash', description: null } }),
    },
  ],
  'match.batch': [{
    name: 'a batch of matches', windows: ['nov'],
    command: (w) => ({ type: 'match.batch', window: w.windows.nov, matches: [
      { statement_lines: ['l1'], entries: [w.novEntry], strategy: 'amount_and_date', reason: null },
      { statement_lines: ['l2'], entries: [], strategy: 'write_off', reason: 'gone' },
    ] }),
  }],
  'match.reverse': [{ name: 'an unmatch', windows: ['nov'], command: (w) => ({ type: 'match.reverse', window: w.windows.nov, match: w.writeOff }) }],
  'window.transition': [{ name: 'an abandon', windows: ['nov'], command: (w) => ({ type: 'window.transition', window: w.windows.nov, state: 'abandoned', reason: 'redo' }) }],
  'webhook.create': [{ name: 'a subscription', windows: [], command: () => ({ type: 'webhook.create', url: 'https://example.test/2', events: ['match.created'], secret }) }],
  'webhook.delete': [{ name: 'an unsubscription', windows: [], command: (w) => ({ type: 'webhook.delete', webhook: w.webhook }) }],
  'matching_rule.create': [{ name: 'a rule', windows: [], command: () => ({ type: 'matching_rule.create', ...ruleFields, name: 'another' }) }],
  'matching_rule.update': [{ name: 'a rule changed', windows: [], command: (w) => ({ type: 'matching_rule.update', rule: w.rule, priority: 5 }) }],
  'matching_rule.delete': [{ name: 'a rule deleted', windows: [], command: (w) => ({ type: 'matching_rule.delete', rule: w.rule }) }],
  'window.line.annotate': [{ name: 'a line assigned and noted (no window object changes)', windows: [], command: (w) => ({ type: 'window.line.annotate', window: w.windows.nov, line: 'l1', assignee: 'ann', note: 'call the bank' }) }],
  'match.auto': [{ name: 'an auto-match', windows: ['nov'], command: (w) => ({ type: 'match.auto', window: w.windows.nov }) }],
  'approval.decide': [
    { name: 'an approve runs the held write-off', windows: ['nov'], command: (w) => ({ type: 'approval.decide', approval: w.approval, decision: 'approve', reason: null, key_name: null }) },
    { name: 'a rejection changes no figure', windows: [], command: (w) => ({ type: 'approval.decide', approval: w.approval, decision: 'reject', reason: 'no', key_name: null }) },
  ],
  'seal.key': [{ name: 'a key given on upgrade signs the closed window', windows: ['oct'], command: () => ({ type: 'seal.key', ...sealKeyCommandFields() }) }],
}

/** A fresh key pair in the command's wire names. */
function sealKeyCommandFields(): { private_key: string; public_key: string } {
  const pair = newSealKeyPair()
  return { private_key: pair.privateKey, public_key: pair.publicKey }
}

/** What a subscriber would be sent for each window and account that exist now, by id. */
function watched(ctx: Machine): { windows: Map<string, string>; balances: Map<number, string> } {
  const windows = new Map(ctx.state.windows.windows.map((window) => [window.id, JSON.stringify(windowView(ctx.state, window))]))
  const balances = new Map(ctx.state.accounts.map((account) => [account.seq, JSON.stringify(balanceAt(ctx.state, account.id, ctx.atMs, null))]))
  return { windows, balances }
}

function changedKeys<K>(before: Map<K, string>, after: Map<K, string>): K[] {
  return [...before.keys()].filter((key) => after.get(key) !== before.get(key))
}

t.test('the scenarios cover every command type of the commands module', async (t) => {
  t.ok(workspaceCommandTypes.length >= 13, 'the list is read')
  for (const type of workspaceCommandTypes) t.ok((scenarios[type] ?? []).length > 0, `${type} has a scenario`)
})

t.test('every accepted command reports each window and balance it changed', async (t) => {
  for (const type of workspaceCommandTypes) {
    for (const scenario of scenarios[type] as readonly Scenario<typeof type>[]) {
      const label = `${type}: ${scenario.name}`
      const w = world()
      const body = scenario.command(w)
      t.equal(body.type, type, `${label}: builds its type`)
      const before = watched(w.ctx)
      const command = { at_ms: w.ctx.atMs, key_id: 'key_test', visibility: null, ...body } as WorkspaceCommand
      const outcome = executeWorkspace(w.ctx.state, command)
      if (!t.ok(outcome.ok, `${label}: accepted`) || !outcome.ok) {
        t.comment(outcome.ok ? '' : `${outcome.code}: ${outcome.message}`)
        continue
      }
      const after = watched(w.ctx)
      const changes = changesOf(w.ctx.state, command, outcome)
      const reportedWindows = new Set(changes.windows.map((window) => window.id))
      const changedWindows = changedKeys(before.windows, after.windows)
      const names = Object.entries(w.windows).filter(([, id]) => changedWindows.includes(id)).map(([name]) => name).sort()
      t.same(names, [...scenario.windows].sort(), `${label}: the windows it changes`)
      t.same(changedWindows.filter((id) => !reportedWindows.has(id)), [], `${label}: every window it changed is reported`)
      const reportedAccounts = new Set(changes.accountSeqs)
      t.same(changedKeys(before.balances, after.balances).filter((seq) => !reportedAccounts.has(seq)), [], `${label}: every balance it changed is reported`)
    }
  }
})
