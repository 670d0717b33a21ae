/**
 * Live window figures (src/ledger/window-effects.ts): which states are terminal; a window by id only when the
 * key sees all its accounts; derived movement live, then frozen; the residual and its safe range; balanced only
 * at residual 0 with an active match; the history a change writes (and the flip after it); and what a posting
 * does to the live windows of its period: each touched once, its amount on the window's accounts, a posting
 * that would push the figures past the safe range refused.
 */
import t from 'tap'
import {
  applyEntryToWindows, checkEntryAgainstWindows, derivedOf, findWindow, isTerminal, liveStateOf, liveWindowsTouched, recordChange,
  residualFrom, residualOf, touchesLiveWindows, windowAmountOf,
} from '../../src/ledger/window-effects.ts'
import { makeId } from '../../src/ledger/ids.ts'
import type { ReconciliationWindow } from '../../src/ledger/windows-state.ts'
import { SumTree } from '../../src/ledger/sum-tree.ts'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.ts'
import { stableSerialize } from '../support/state-fingerprint.ts'
import { machine, ok, posting, run, type Machine } from '../support/workspace-machine.ts'

const tag = 'wef001'
const max = Number.MAX_SAFE_INTEGER
const envelope = { at_ms: Date.UTC(2026, 5, 1), key_id: 'key_w', visibility: null }
const at = (iso: string): { effectiveAtMs: number } => ({ effectiveAtMs: Date.parse(iso) })

/** March (UTC) windows: rec_1 on assets:bank and assets:cash claiming `claimed`, rec_2 on assets:card. */
function march(claimed = 0): Machine {
  const ctx = machine(['assets:bank', 'assets:cash', 'assets:card', 'income:sales'], Date.UTC(2026, 5, 1), tag)
  const open = (accounts: string[], claimedMovement: number) => ok(run(ctx, { type: 'window.open', label: 'March', accounts, from: '2026-03-01', to: '2026-03-31', claimed_movement: claimedMovement, statement_ref: null, tolerance: 0, time_zone: 'UTC' }))
  open(['assets:bank', 'assets:cash'], claimed)
  open(['assets:card'], 0)
  return ctx
}

t.test('isTerminal: closed and abandoned only', async (t) => {
  t.same((['open', 'balanced', 'closed', 'abandoned'] as const).map(isTerminal), [false, false, true, true])
})

t.test('findWindow: this workspace\'s id, only when the key sees every account of the window', async (t) => {
  const ctx = march()
  const [first, second] = ctx.state.windows.windows
  t.equal(findWindow(ctx.state, first.id, null), first)
  t.equal(findWindow(ctx.state, first.id, ['assets:*']), first)
  t.equal(findWindow(ctx.state, first.id, ['assets:bank']), undefined, 'one of its accounts unseen')
  t.equal(findWindow(ctx.state, second.id, ['assets:card']), second)
  t.equal(findWindow(ctx.state, makeId('rec_', tag, 3), null), undefined)
  t.equal(findWindow(ctx.state, makeId('rec_', 'zzz999', 1), null), undefined)
})

t.test('derivedOf and residualOf: live over [start, end) until the window ends, then frozen', async (t) => {
  const ctx = march(100)
  const window = ctx.state.windows.windows[0]
  ok(run(ctx, posting([['assets:bank', 30], ['assets:cash', 20], ['income:sales', -50]], '2026-03-01T00:00:00Z')))
  ok(run(ctx, posting([['assets:bank', 1], ['income:sales', -1]], '2026-04-01T00:00:00Z')))
  ok(run(ctx, posting([['assets:bank', 2], ['income:sales', -2]], '2026-02-28T23:59:59.999Z')))
  t.equal(derivedOf(ctx.state, window), 50, 'the period\'s first millisecond in, its end and before out')
  t.equal(residualOf(ctx.state, window), 50)
  ok(run(ctx, { type: 'window.transition', window: window.id, state: 'abandoned', reason: 'test' }))
  t.equal(window.frozenDerived, 50)
  ok(run(ctx, posting([['assets:bank', 9], ['income:sales', -9]], '2026-03-05T00:00:00Z')))
  t.equal(derivedOf(ctx.state, window), 50, 'abandoned: frozen, a later posting into the period does not move it')
  t.equal(residualOf(ctx.state, window), 50)
})

t.test('residualFrom: claimed − derived − matched, null when a step leaves the safe range', async (t) => {
  const window = (claimedMovement: number) => ({ claimedMovement } as ReconciliationWindow)
  t.equal(residualFrom(window(100), 30, 20), 50)
  t.equal(residualFrom(window(0), 0, 0), 0)
  t.equal(residualFrom(window(-5), -5, 0), 0)
  t.equal(residualFrom(window(-max), 1, 0), null, 'claimed − derived past −max')
  t.equal(residualFrom(window(-max), 0, 1), null, 'then − matched past it')
  t.equal(residualFrom(window(max), -1, 5), null, 'a step out of range refuses even if the next would come back')
  t.equal(residualFrom(window(max), max, -max), max)
})

t.test('residualOf throws when the live figures leave the safe range (a posting is refused before that)', async (t) => {
  const state = createWorkspaceState('ws', tag)
  state.accounts.push({ index: new SumTree() } as WorkspaceState['accounts'][number])
  state.accounts[0].index.insert(10, 1, 1)
  const window = { id: 'rec_x', accountSeqs: [1], startMs: 0, endMs: 100, claimedMovement: -max, matchedTotal: 0, frozenDerived: null, frozenResidual: null } as unknown as ReconciliationWindow
  t.throws(() => residualOf(state, window), RangeError)
  t.equal(residualOf(state, { ...window, frozenResidual: 7 } as ReconciliationWindow), 7, 'a frozen residual is not recomputed')
})

t.test('liveStateOf: balanced exactly at residual 0 with an active match', async (t) => {
  const withMatches = (activeMatchCount: number) => ({ activeMatchCount } as ReconciliationWindow)
  t.equal(liveStateOf(withMatches(1), 0), 'balanced')
  t.equal(liveStateOf(withMatches(3), 0), 'balanced')
  t.equal(liveStateOf(withMatches(0), 0), 'open', 'nothing matched yet')
  t.equal(liveStateOf(withMatches(1), 1), 'open')
  t.equal(liveStateOf(withMatches(1), -1), 'open')
})

t.test('recordChange: the change carries the state after it; a flip follows with its cause; a terminal state stays', async (t) => {
  const state = createWorkspaceState('ws', tag)
  const window = (from: string, residual: number) => ({ id: 'rec_x', state: from, activeMatchCount: 1, frozenResidual: residual, history: [] } as unknown as ReconciliationWindow)
  const flips = window('open', 0)
  t.equal(recordChange(state, flips, envelope, 'line_matched', { line: 'l1' }, { cause: 'match' }), 0)
  t.equal(flips.state, 'balanced')
  t.same(flips.history, [
    { type: 'line_matched', atMs: envelope.at_ms, keyId: 'key_w', state: 'balanced', residual: 0, detail: { line: 'l1' } },
    { type: 'balanced', atMs: envelope.at_ms, keyId: 'key_w', state: 'balanced', residual: 0, detail: { from: 'open', cause: 'match' } },
  ])
  const back = window('balanced', 4)
  recordChange(state, back, envelope, 'entry_posted', {}, { cause: 'entry_posted' })
  t.same(back.history.map((event) => [event.type, event.state]), [['entry_posted', 'open'], ['open', 'open']], 'balanced back to open')
  const same = window('open', 4)
  recordChange(state, same, envelope, 'entry_posted', {}, {})
  t.same(same.history.map((event) => event.type), ['entry_posted'], 'no flip, no second event')
  for (const terminal of ['closed', 'abandoned']) {
    const done = window(terminal, 0)
    recordChange(state, done, envelope, 'approval_rejected', {}, {})
    t.equal(done.state, terminal, `${terminal} stays ${terminal}`)
    t.same(done.history.map((event) => [event.type, event.state]), [['approval_rejected', terminal]])
  }
})

t.test('windowAmountOf: the posting\'s amounts on the window\'s accounts only', async (t) => {
  const window = { accountSeqs: [1, 2] } as unknown as ReconciliationWindow
  t.equal(windowAmountOf(window, new Map([[1, 30], [2, 20], [4, -50]])), 50)
  t.equal(windowAmountOf(window, new Map([[4, 5], [3, -5]])), 0, 'none of its accounts')
  t.equal(windowAmountOf(window, new Map()), 0)
})

t.test('liveWindowsTouched and touchesLiveWindows: the live windows holding the posting, each once', async (t) => {
  const ctx = march()
  const [first, second] = ctx.state.windows.windows
  const all = new Map([[1, 5], [2, 5], [3, 5], [4, -15]])
  t.same(liveWindowsTouched(ctx.state, at('2026-03-15T00:00:00Z'), all), [first, second], 'bank and cash both in rec_1: it comes once')
  t.same(liveWindowsTouched(ctx.state, at('2026-03-31T23:59:59.999Z'), new Map([[3, 1], [4, -1]])), [second], 'the last millisecond')
  t.same(liveWindowsTouched(ctx.state, at('2026-04-01T00:00:00Z'), all), [], 'after the period')
  t.same(liveWindowsTouched(ctx.state, at('2026-03-15T00:00:00Z'), new Map([[4, 0]])), [], 'an account without a window')
  t.ok(touchesLiveWindows(ctx.state, new Map([[4, 1], [2, -1]])))
  t.notOk(touchesLiveWindows(ctx.state, new Map([[4, 1]])))
  ok(run(ctx, { type: 'window.transition', window: second.id, state: 'abandoned', reason: 'test' }))
  t.notOk(touchesLiveWindows(ctx.state, new Map([[3, 1]])), 'an abandoned window is not live')
  t.notOk(touchesLiveWindows(machine(['a:b'], 0, tag).state, new Map([[1, 1]])), 'no windows at all')
})

t.test('checkEntryAgainstWindows: refuses a posting that would push a live window past the safe range', async (t) => {
  const ctx = march(-(max - 10))
  const inMarch = at('2026-03-10T00:00:00Z')
  t.equal(checkEntryAgainstWindows(ctx.state, inMarch, new Map([[1, 10], [4, -10]])), null, 'to the edge: fine')
  t.equal(checkEntryAgainstWindows(ctx.state, inMarch, new Map([[1, 6], [2, 5], [4, -11]]))?.code, 'amount_out_of_range', 'one past it, over two accounts')
  t.equal(checkEntryAgainstWindows(ctx.state, at('2026-04-10T00:00:00Z'), new Map([[1, 11], [4, -11]])), null, 'outside the period')
  t.equal(checkEntryAgainstWindows(ctx.state, inMarch, new Map([[3, 11], [4, -11]])), null, 'another window, in range')
  const before = stableSerialize(ctx.state)
  const refused = run(ctx, posting([['assets:bank', 11], ['income:sales', -11]], '2026-03-10T00:00:00Z'))
  t.equal(refused.ok ? 'accepted' : refused.code, 'amount_out_of_range', 'the posting is refused')
  t.equal(stableSerialize(ctx.state), before, 'and changes nothing')
})

t.test('applyEntryToWindows: an entry_posted event with the window\'s amount in each touched window', async (t) => {
  const ctx = march(50)
  const [first, second] = ctx.state.windows.windows
  const firstBefore = first.history.length
  const secondBefore = second.history.length
  const id = ok(run(ctx, posting([['assets:bank', 30], ['assets:cash', 20], ['assets:card', 7], ['income:sales', -57]], '2026-03-10T00:00:00Z'))).id
  t.same(first.history.slice(firstBefore).map((event) => [event.type, event.detail, event.residual]), [['entry_posted', { entry: id, amount: 50 }, 0]])
  t.same(second.history.slice(secondBefore).map((event) => [event.type, event.detail, event.residual]), [['entry_posted', { entry: id, amount: 7 }, -7]])
  const quiet = ctx.state.entries[0]
  const snapshot = stableSerialize(ctx.state)
  applyEntryToWindows(ctx.state, quiet, new Map([[4, 0]]), envelope)
  t.equal(stableSerialize(ctx.state), snapshot, 'no live window on its accounts: nothing recorded')
})
