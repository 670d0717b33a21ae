/**
 * The balance index (src/ledger/balances.ts): an entry adds one point per account (its lines there summed);
 * the restore's bulk build gives the very trees the live inserts give, back-dated entries and equal
 * timestamps included; the balance is every line with effective_at <= at; movement is over [start, end)
 * and null once the sum of several accounts leaves the safe range.
 */
import fc from 'fast-check'
import t from 'tap'
import { amountsPerAccount, balanceAt, buildBalanceIndexes, insertEntryPoints, movementOver } from '../../src/ledger/balances.ts'
import { DoublesArena, SumTree } from '../../src/ledger/sum-tree.ts'
import { createWorkspaceState, Entry, EntryStore, type WorkspaceState } from '../../src/ledger/state.ts'
import { machine, ok, posting, run } from '../support/workspace-machine.ts'

const tag = 'bal001'
const points = (tree: SumTree): [number, number, number][] => [...tree.iterate()].map((p) => [p.atMs, p.seq, p.amount])

/** An entry of these [accountSeq, amount] lines in a store of its own. */
function entryOf(seq: number, effectiveAtMs: number, lines: readonly [number, number][], store = new EntryStore(tag)): Entry {
  return Entry.create(seq, effectiveAtMs, effectiveAtMs, lines.map(([accountSeq, amount]) => ({ accountSeq, amount })), null, null, store)
}

t.test('amountsPerAccount: one amount per account, its lines summed, in order of first appearance', async (t) => {
  const entry = entryOf(1, 0, [[3, 10], [1, -4], [3, 5], [2, -11], [1, 0]])
  t.same([...amountsPerAccount(entry)], [[3, 15], [1, -4], [2, -11]])
  t.same([...amountsPerAccount(entryOf(2, 0, [[1, 7], [1, -7]]))], [[1, 0]], 'lines that cancel still make a point (of 0)')
  t.same([...amountsPerAccount(entryOf(3, 0, []))], [], 'no lines, no points')
})

/** Entries posted live (insertEntryPoints) into a fresh state with `accounts` accounts. */
function liveState(entries: readonly Entry[], accounts: number): WorkspaceState {
  const ctx = machine(Array.from({ length: accounts }, (_, i) => `assets:a${i + 1}`), 0, tag)
  for (const entry of entries) insertEntryPoints(ctx.state, entry, amountsPerAccount(entry))
  return ctx.state
}

t.test('buildBalanceIndexes: the trees of the live inserts, for back-dated entries and equal timestamps', async (t) => {
  const store = new EntryStore(tag)
  const day = 86_400_000
  // seq order; 3 and 5 back-dated, 4 and 6 at the same instant as 2, so the seq breaks the tie.
  const entries = [
    entryOf(1, 10 * day, [[1, 5], [2, -5]], store),
    entryOf(2, 20 * day, [[1, 7], [2, -7]], store),
    entryOf(3, 5 * day, [[2, 3], [3, -3]], store),
    entryOf(4, 20 * day, [[1, 1], [3, -1]], store),
    entryOf(5, 1 * day, [[1, 2], [1, 2], [2, -4]], store),
    entryOf(6, 20 * day, [[2, 9], [3, -9]], store),
  ]
  const built = buildBalanceIndexes(entries, 3, new DoublesArena())
  const live = liveState(entries, 3)
  t.equal(built.balances.length, 4, 'one tree per account, index 0 unused')
  t.same(points(built.balances[0]), [])
  t.same(points(built.balances[1]), [[1 * day, 5, 4], [10 * day, 1, 5], [20 * day, 2, 7], [20 * day, 4, 1]])
  for (let seq = 1; seq <= 3; seq++) t.same(points(built.balances[seq]), points(live.accounts[seq - 1].index), `account ${seq}`)
  t.same(points(built.entryOrder), points(live.entryOrder), 'the entry order')
  t.same(points(built.entryOrder).map(([, seq]) => seq), [5, 3, 1, 2, 4, 6])
  const empty = buildBalanceIndexes([], 2, new DoublesArena())
  t.same(empty.balances.map((tree) => tree.size), [0, 0, 0], 'no entries: empty trees')
  t.equal(empty.entryOrder.size, 0)
})

t.test('buildBalanceIndexes agrees with the live inserts on random entries', async (t) => {
  const line = fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: -1000, max: 1000 }))
  const entry = fc.tuple(fc.integer({ min: 0, max: 30 }), fc.array(line, { minLength: 1, maxLength: 4 }))
  fc.assert(fc.property(fc.array(entry, { maxLength: 60 }), (specs) => {
    const store = new EntryStore(tag)
    const entries = specs.map(([atMs, lines], i) => entryOf(i + 1, atMs, lines, store))
    const built = buildBalanceIndexes(entries, 4, new DoublesArena())
    const live = liveState(entries, 4)
    for (let seq = 1; seq <= 4; seq++) t.strictSame(points(built.balances[seq]), points(live.accounts[seq - 1].index))
    t.strictSame(points(built.entryOrder), points(live.entryOrder))
  }), { numRuns: 200 })
})

t.test('balanceAt: lines with effective_at <= at, by id or name; not_found when unknown or unseen', async (t) => {
  const ctx = machine(['assets:bank', 'income:sales'], Date.UTC(2026, 5, 1), tag)
  ok(run(ctx, posting([['assets:bank', 100], ['income:sales', -100]], '2026-03-01T00:00:00Z')))
  ok(run(ctx, posting([['assets:bank', 20], ['income:sales', -20]], '2026-03-02T00:00:00Z')))
  const at = Date.parse('2026-03-02T00:00:00Z')
  const bank = ctx.state.accounts[0]
  const balance = (reference: string, atMs: number): any => ok(balanceAt(ctx.state, reference, atMs, null))
  t.same(balance('assets:bank', at), { account: bank.id, name: 'assets:bank', currency: 'USD', balance: 120, at: '2026-03-02T00:00:00.000Z' })
  t.equal(balance(bank.id, at - 1).balance, 100, 'a millisecond before the second entry')
  t.equal(balance('income:sales', at).balance, -120)
  t.equal(balance('assets:bank', Date.parse('2026-03-01T00:00:00Z') - 1).balance, 0, 'before every entry')
  for (const [reference, visibility] of [['assets:none', null], ['assets:bank', ['income:*']]] as const) {
    const outcome = balanceAt(ctx.state, reference, at, visibility)
    t.equal(outcome.ok ? 'accepted' : outcome.code, 'not_found', `${reference} ${JSON.stringify(visibility)}`)
  }
})

t.test('movementOver: the accounts\' lines in [start, end); null when the total leaves the safe range', async (t) => {
  const state = createWorkspaceState('ws', tag)
  for (let i = 0; i < 3; i++) state.accounts.push({ index: new SumTree() } as WorkspaceState['accounts'][number])
  state.accounts[0].index.insert(100, 1, 5)
  state.accounts[0].index.insert(200, 2, 7)
  state.accounts[1].index.insert(100, 1, -5)
  state.accounts[1].index.insert(150, 3, 11)
  t.equal(movementOver(state, [1], 100, 200), 5, 'start included, end excluded')
  t.equal(movementOver(state, [1], 100, 201), 12)
  t.equal(movementOver(state, [1], 101, 200), 0)
  t.equal(movementOver(state, [1, 2], 100, 201), 18)
  t.equal(movementOver(state, [], 0, 1000), 0, 'no accounts')
  t.equal(movementOver(state, [1, 2], 300, 400), 0, 'an empty span')
  const max = Number.MAX_SAFE_INTEGER
  state.accounts[2].index.insert(100, 4, max - 5)
  t.equal(movementOver(state, [1, 3], 100, 101), max, 'the edge of the safe range')
  t.equal(movementOver(state, [1, 3], 100, 201), null, 'past it')
  t.equal(movementOver(state, [3, 1, 2], 100, 201), null, 'in any order')
})
