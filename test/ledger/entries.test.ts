/**
 * Postings (src/ledger/entries.ts): postEntry accepts balanced entries and refuses with each of its codes
 * (account_unknown, entry_unbalanced, amount_out_of_range for the debits, a balance and a window figure),
 * leaving the state unchanged; entry views, lookups by id and visibility, balances at a time, movement.
 */
import t from 'tap'
import { amountsPerAccount, balanceAt, movementOver } from '../../src/ledger/balances.ts'
import { entryView, findEntry, getEntry, isEntryVisible } from '../../src/ledger/entries.ts'
import { parseId } from '../../src/ledger/ids.ts'
import { Entry, EntryStore } from '../../src/ledger/state.ts'
import { machine, ok, posting, refused, run, type CommandBody } from '../support/workspace-machine.ts'

const nowMs = Date.parse('2026-12-01T12:00:00.000Z')
const max = Number.MAX_SAFE_INTEGER
const accounts = ['assets:bank', 'assets:cash', 'income:sales', 'expenses:fees']

t.test('an accepted entry: 201, ids in order, lines with names and ids, effective_at defaults to the command time', async (t) => {
  const ctx = machine(accounts, nowMs)
  const first = run(ctx, posting([['assets:bank', 150], ['income:sales', -150]]))
  t.equal(first.ok && first.status, 201)
  const body = ok(first)
  t.match(body, { effective_at: '2026-12-01T12:00:00.000Z', posted_at: '2026-12-01T12:00:00.000Z', description: null, metadata: null })
  t.same(body.lines.map((line: any) => [line.account, line.amount]), [['assets:bank', 150], ['income:sales', -150]])
  t.equal(body.lines[0].account_id, ctx.state.accounts[0].id, 'a line names the account id too')
  const second = ok(run(ctx, { ...posting([['acc_abcdef000000002', 7], ['expenses:fees', -7]], '2026-11-02T00:00:00Z'), description: 'cash', metadata: { ref: 'x' } } as CommandBody))
  t.ok(second.id > body.id, 'ids of one workspace sort in creation order')
  t.equal(second.lines[0].account, 'assets:cash', 'a line may name the account by id; the answer names it')
  t.equal(second.effective_at, '2026-11-02T00:00:00.000Z', 'a back-dated effective_at is kept')
  t.same([second.description, second.metadata], ['cash', { ref: 'x' }])
  t.equal(ctx.state.entries.length, 2)
})

t.test('account_unknown: every unknown or invisible line is named, the first in the message', async (t) => {
  const ctx = machine(accounts, nowMs)
  const rejection = refused(t, ctx, posting([['assets:bank', 5], ['assets:nope', -3], ['income:gone', -2]]), 'account_unknown', 'two unknown accounts')
  t.equal(rejection.message, 'Unknown account: assets:nope.')
  t.same(rejection.details?.map((detail) => detail.path), ['/lines/1/account', '/lines/2/account'])
  ctx.visibility = ['assets:*']
  refused(t, ctx, posting([['assets:bank', 5], ['income:sales', -5]]), 'account_unknown', 'an account the key cannot see is unknown to it')
  refused(t, ctx, posting([['assets:bank', 5], ['income:sales', 0]]), 'account_unknown', 'unknown accounts answer before the balance check')
  refused(t, ctx, posting([['acc_zzzzzz000000001', 5], ['assets:cash', -5]]), 'account_unknown', 'an id of another workspace')
})

t.test('entry_unbalanced: decided exactly, even where a float sum would round', async (t) => {
  const ctx = machine(accounts, nowMs)
  const small = refused(t, ctx, posting([['assets:bank', 10], ['income:sales', -9]]), 'entry_unbalanced', 'off by one')
  t.match(small.message, /sum to 1, not 0/)
  const huge = refused(t, ctx, posting([['assets:bank', max], ['assets:cash', 1], ['income:sales', -max], ['expenses:fees', -2]]), 'entry_unbalanced', 'partial sums beyond the safe range')
  t.match(huge.message, /sum to -1, not 0/, 'the exact (BigInt) sum is reported')
})

t.test('amount_out_of_range: the debits, an account balance, a live window figure', async (t) => {
  const ctx = machine(accounts, nowMs)
  refused(t, ctx, posting([['assets:bank', max], ['assets:cash', max], ['income:sales', -max], ['expenses:fees', -max]]), 'amount_out_of_range', 'balanced, but the debits sum beyond 2^53-1')
  ok(run(ctx, posting([['assets:bank', max], ['income:sales', -max]])))
  const balance = refused(t, ctx, posting([['assets:bank', 1], ['expenses:fees', -1]]), 'amount_out_of_range', 'assets:bank would pass 2^53-1')
  t.match(balance.message, /assets:bank/)
  ok(run(ctx, posting([['assets:cash', 1], ['expenses:fees', -1]], '2026-11-15T00:00:00Z')))
  ok(run(ctx, { type: 'window.open', label: 'Nov', accounts: ['assets:cash'], from: '2026-11-01', to: '2026-11-30', claimed_movement: -max + 1, statement_ref: null, tolerance: 0, time_zone: 'UTC' }))
  const window = refused(t, ctx, posting([['assets:cash', 1], ['expenses:fees', -1]], '2026-11-16T00:00:00Z'), 'amount_out_of_range', 'the window residual would pass -(2^53-1)')
  t.match(window.message, /window rec_/)
  ok(run(ctx, posting([['assets:cash', 1], ['expenses:fees', -1]], '2026-10-16T00:00:00Z')))
  t.pass('the same posting outside the window period is accepted')
})

t.test('balanceAt and movementOver read the balance index at a time and over a period', async (t) => {
  const ctx = machine(accounts, nowMs)
  ok(run(ctx, posting([['assets:bank', 100], ['income:sales', -100]], '2026-11-01T00:00:00Z')))
  ok(run(ctx, posting([['assets:bank', 40], ['income:sales', -40]], '2026-11-10T00:00:00Z')))
  ok(run(ctx, posting([['assets:bank', -15], ['expenses:fees', 15]], '2026-11-30T23:59:59.999Z')))
  ok(run(ctx, posting([['assets:bank', 1000], ['income:sales', -1000]], '2026-12-01T00:00:00Z')))
  const bank = ctx.state.accounts[0]
  const at = (iso: string) => ok(balanceAt(ctx.state, 'assets:bank', Date.parse(iso), null)).balance
  t.equal(at('2026-10-31T23:59:59.999Z'), 0, 'nothing before the first posting')
  t.equal(at('2026-11-01T00:00:00Z'), 100, 'effective_at <= at counts')
  t.equal(at('2026-11-30T23:59:59.999Z'), 125)
  t.equal(at('2026-12-01T12:00:00Z'), 1125)
  t.same(ok(balanceAt(ctx.state, bank.id, nowMs, null)), { account: bank.id, name: 'assets:bank', currency: 'USD', balance: 1125, at: '2026-12-01T12:00:00.000Z' }, 'by id')
  t.equal(balanceAt(ctx.state, 'assets:bank', nowMs, ['income:*']).ok, false, 'an invisible account has no balance to this key')
  t.equal(balanceAt(ctx.state, 'assets:nope', nowMs, null).ok ? '' : 'not_found', 'not_found')
  const [startMs, endMs] = [Date.parse('2026-11-01T00:00:00Z'), Date.parse('2026-12-01T00:00:00Z')]
  t.equal(movementOver(ctx.state, [bank.seq], startMs, endMs), 125, 'movement over [start, end): the end is excluded')
  t.equal(movementOver(ctx.state, [bank.seq, 3], startMs, endMs), 125 - 140, 'several accounts are summed')
  t.equal(movementOver(ctx.state, [], startMs, endMs), 0)
})

t.test('movementOver is null when the sum of accounts leaves the safe range', async (t) => {
  const ctx = machine(accounts, nowMs)
  ok(run(ctx, posting([['assets:bank', max], ['income:sales', -max]])))
  ok(run(ctx, posting([['assets:cash', max], ['expenses:fees', -max]])))
  t.equal(movementOver(ctx.state, [1, 2], 0, nowMs + 1), null)
  t.equal(movementOver(ctx.state, [1, 3], 0, nowMs + 1), 0)
})

t.test('findEntry, getEntry, isEntryVisible, entryView: by id, only when every line is visible', async (t) => {
  const ctx = machine(accounts, nowMs)
  const body = ok(run(ctx, posting([['assets:bank', 3], ['income:sales', -3]])))
  const entry = ctx.state.entries[0]
  t.equal(findEntry(ctx.state, body.id, null), entry)
  t.same(ok(getEntry(ctx.state, body.id, null)), body, 'getEntry answers what the post answered')
  t.same(entryView(ctx.state, entry), body)
  t.equal(isEntryVisible(ctx.state, entry, ['assets:*']), false, 'one invisible line hides the entry')
  t.equal(isEntryVisible(ctx.state, entry, ['assets:*', 'income:sales']), true)
  t.equal(findEntry(ctx.state, body.id, ['assets:*']), undefined)
  for (const id of ['ent_abcdef000000002', 'ent_zzzzzz000000001', 'acc_abcdef000000001', 'nonsense']) {
    t.equal(findEntry(ctx.state, id, null), undefined, `${id} is no entry here`)
    const outcome = getEntry(ctx.state, id, null)
    t.equal(outcome.ok ? 'found' : outcome.code, 'not_found')
  }
  ok(run(ctx, { type: 'account.update', account: 'assets:bank', name: 'assets:checking' }))
  t.equal(ok(getEntry(ctx.state, body.id, null)).lines[0].account, 'assets:checking', 'lines show the account\'s current name')
})

t.test('amountsPerAccount sums the lines of one account, in order of first appearance', async (t) => {
  const entryOf = (lines: { accountSeq: number; amount: number }[]) => Entry.create(1, 0, 0, lines, null, null, new EntryStore('tag'))
  t.same([...amountsPerAccount(entryOf([{ accountSeq: 2, amount: 5 }, { accountSeq: 1, amount: -3 }, { accountSeq: 2, amount: -2 }]))], [[2, 3], [1, -3]])
  t.same([...amountsPerAccount(entryOf([]))], [])
})

t.test('an Entry gives back its timestamps and lines as they went in, in a store that grows under it', async (t) => {
  const lines = [{ accountSeq: 3, amount: 2 ** 40 }, { accountSeq: 1, amount: -(2 ** 40) + 7 }, { accountSeq: 3, amount: -7 }]
  const effectiveAtMs = Date.UTC(2026, 9, 31, 23, 59, 59, 999)
  const store = new EntryStore('k3x9', 4)
  const expected = (seq: number) => {
    const count = seq % 4
    return { id: `ent_k3x9${seq.toString(36).padStart(9, '0')}`, seq, lines: lines.slice(0, count), effectiveAtMs: effectiveAtMs - seq, postedAtMs: effectiveAtMs + seq, description: count === 0 ? null : `d${seq}`, metadata: seq % 2 === 0 ? { n: String(seq) } : null }
  }
  const entries: Entry[] = []
  for (let seq = 1; seq <= 200; seq++) {
    const want = expected(seq)
    const entry = Entry.create(seq, want.effectiveAtMs, want.postedAtMs, want.lines, want.description, want.metadata, store)
    t.same(entry.toJSON(), want, `entry ${seq} as made`)
    t.equal(entry.store, store, 'made in the given store')
    entries.push(entry)
  }
  t.equal(store.length, entries.reduce((sum, entry) => sum + 3 + 2 * entry.lineCount, 0), 'the store holds each entry once, no gaps')
  t.ok(store.values.length >= store.length)
  for (const entry of entries) {
    const want = expected(entry.seq)
    t.same(entry.toJSON(), want, `entry ${entry.seq} after the store grew`)
    t.same(Array.from({ length: entry.lineCount }, (_, i) => [entry.lineAccountSeq(i), entry.lineAmount(i)]), want.lines.map((line) => [line.accountSeq, line.amount]))
    t.same(entry.accountSeqs(), entry.lineCount === 3 ? [3, 1] : want.lines.map((line) => line.accountSeq))
    t.equal(parseId('ent_', 'k3x9', entry.id), entry.seq)
    t.equal(JSON.stringify(entry), JSON.stringify(want), 'JSON shows the fields, not the store')
  }
  const appended = Entry.create(201, 5, 6, lines.slice(0, 2), null, null, store)
  t.equal(appended.store, store, 'made in a given store')
  t.same(appended.lines, lines.slice(0, 2))
})
