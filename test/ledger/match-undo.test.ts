/**
 * src/ledger/match-undo.ts on its own: matches made on a window after its mark (by the real match.create) are taken
 * back whole: the window (lines, matched entries, history, figures, counts) and the workspace's list of matches are
 * as they were at the mark, and the same match can be made again; a match of another window is not undone.
 */
import t from 'tap'
import type { WorkspaceCommand } from '../../src/ledger/commands.ts'
import { markWindow, undoToMark } from '../../src/ledger/match-undo.ts'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.ts'
import { executeWorkspace } from '../../src/ledger/workspace.ts'

const tag = 'mu4x'
const nowMs = Date.UTC(2026, 5, 1, 12)
const envelope = { at_ms: nowMs, key_id: 'key_test', visibility: null }
const march = `rec_${tag}000000001`
const april = `rec_${tag}000000002`
const post = (amount: number, day: string) => ({ ...envelope, type: 'entry.post', lines: [{ account: 'assets:bank', amount }, { account: 'income:sales', amount: -amount }], effective_at_ms: Date.parse(`${day}T09:00:00Z`), description: 'sale', metadata: null, rules: 2 })
const open = (label: string, from: string, to: string, claimed: number) => ({ ...envelope, type: 'window.open', label, accounts: ['assets:bank'], from, to, claimed_movement: claimed, statement_ref: null, tolerance: 0, time_zone: 'UTC' })
const match = (window: string, lines: string[], entries: string[]) => ({ ...envelope, type: 'match.create', window, statement_lines: lines, entries, strategy: 'manual', reason: null })

function run(state: WorkspaceState, command: unknown): void {
  const outcome = executeWorkspace(state, command as WorkspaceCommand)
  if (!outcome.ok) throw new Error(`${(command as WorkspaceCommand).type}: ${outcome.code} ${outcome.message}`)
}

function setUp(): WorkspaceState {
  const state = createWorkspaceState('w', tag)
  for (const command of [
    { ...envelope, type: 'account.create', name: 'assets:bank', tags: [] },
    { ...envelope, type: 'account.create', name: 'income:sales', tags: [] },
    post(300, '2026-03-10'), post(50, '2026-03-12'), post(70, '2026-04-02'),
    open('March', '2026-03-01', '2026-03-31', 350), open('April', '2026-04-01', '2026-04-30', 70),
    { ...envelope, type: 'window.lines.add', window: march, lines: [{ amount: 300, date: '2026-03-10', reference: 'r1', description: null }, { amount: 50, date: '2026-03-12', reference: null, description: null }] },
    { ...envelope, type: 'window.lines.add', window: april, lines: [{ amount: 70, date: '2026-04-02', reference: null, description: null }] },
  ]) run(state, command)
  return state
}

const windowOf = (state: WorkspaceState, id: string) => state.windows.windows.find((window) => window.id === id)!

t.test('matches made after the mark are taken back whole, and can be made again', async (t) => {
  const state = setUp()
  run(state, match(march, ['l1'], [`ent_${tag}000000001`]))
  const window = windowOf(state, march)
  const before = structuredClone(window)
  const matchesBefore = structuredClone(state.windows.matches)
  const mark = markWindow(state, window)
  t.equal(mark.matchesCount, 1)
  run(state, match(march, ['l2'], [`ent_${tag}000000002`]))
  t.equal(window.lines[1].matchSeq > 0, true, 'the match was made')
  t.equal(window.matchSeqs.length, before.matchSeqs.length + 1)
  undoToMark(state, window, mark)
  t.same(window, before, 'lines, matched entries, history, figures as at the mark')
  t.same(state.windows.matches, matchesBefore)
  t.equal(window.matchedEntries.has(2), false)
  run(state, match(march, ['l2'], [`ent_${tag}000000002`]))
  t.equal(window.lines[1].matchSeq > 0, true, 'the line and entry are free again')
})

t.test('several matches undone at once; a mark with nothing after it changes nothing', async (t) => {
  const state = setUp()
  const window = windowOf(state, march)
  const before = structuredClone(window)
  const mark = markWindow(state, window)
  undoToMark(state, window, mark)
  t.same(window, before)
  run(state, match(march, ['l1'], [`ent_${tag}000000001`]))
  run(state, match(march, ['l2'], [`ent_${tag}000000002`]))
  t.equal(state.windows.matches.length, 2)
  undoToMark(state, window, mark)
  t.same(window, before)
  t.equal(state.windows.matches.length, 0)
})

t.test('a match of another window after the mark is not undone with this one', async (t) => {
  const state = setUp()
  const window = windowOf(state, march)
  const mark = markWindow(state, window)
  run(state, match(april, ['l1'], [`ent_${tag}000000003`]))
  t.throws(() => undoToMark(state, window, mark), /only matches of the marked window are undone/)
})
