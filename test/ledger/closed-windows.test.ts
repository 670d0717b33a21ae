/**
 * The closed-window index (src/ledger/closed-windows.ts) against a brute-force model: closed windows of several
 * accounts, overlapping ones among them, added in any order; for every instant near their edges, the windows
 * whose period [start, end) holds it on the given accounts, each once and in seq order; and the drift count a
 * back-dated posting adds to each of them.
 */
import t from 'tap'
import { addClosedWindow, applyEntryToClosedWindows, closedWindowsAt } from '../../src/ledger/closed-windows.ts'
import type { Entry } from '../../src/ledger/state.ts'
import { createWindowsState, type ReconciliationWindow, type WindowsState } from '../../src/ledger/windows-state.ts'

/** The fields the index reads; the rest of a window plays no part. */
function closedWindow(windows: WindowsState, startMs: number, endMs: number, accountSeqs: number[]): ReconciliationWindow {
  const window = { seq: windows.windows.length + 1, startMs, endMs, accountSeqs, postCloseEntryCount: 0 } as unknown as ReconciliationWindow
  windows.windows.push(window)
  return window
}

function modelAt(closed: readonly ReconciliationWindow[], accountSeqs: readonly number[], atMs: number): number[] {
  return closed.filter((window) => window.startMs <= atMs && atMs < window.endMs && window.accountSeqs.some((seq) => accountSeqs.includes(seq))).map((window) => window.seq).sort((a, b) => a - b)
}

function lcg(seed: number): () => number {
  let state = seed >>> 0
  return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32
}

t.test('a handful by hand: ends are exclusive, overlaps found once, other accounts ignored', async (t) => {
  const windows = createWindowsState()
  const march = closedWindow(windows, 100, 200, [1])
  const reopened = closedWindow(windows, 150, 250, [1, 2])
  const other = closedWindow(windows, 0, 1_000, [3])
  for (const window of [reopened, march, other]) addClosedWindow(windows, window)
  const seqs = (accounts: number[], atMs: number) => closedWindowsAt(windows, accounts, atMs).map((window) => window.seq)
  t.same(seqs([1], 99), [], 'before the first start')
  t.same(seqs([1], 100), [1], 'the start is inside')
  t.same(seqs([1], 175), [1, 2], 'in both overlapping windows, in seq order')
  t.same(seqs([1, 2], 175), [1, 2], 'a window on two of the accounts counted once')
  t.same(seqs([1], 200), [2], 'the end is outside')
  t.same(seqs([2], 120), [])
  t.same(seqs([1], 250), [], 'past every end')
  t.same(seqs([4], 150), [], 'an account without closed windows')
  t.same(seqs([3, 1], 500), [3])
  t.same(closedWindowsAt(createWindowsState(), [1], 150), [], 'no closed window anywhere')
})

t.test('random closed windows in random order agree with the model at every edge', async (t) => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const random = lcg(seed)
    const windows = createWindowsState()
    const closed: ReconciliationWindow[] = []
    for (let index = 0; index < 60; index++) {
      const startMs = Math.floor(random() * 1_000)
      const accounts = [1 + Math.floor(random() * 4), 1 + Math.floor(random() * 4)]
      closed.push(closedWindow(windows, startMs, startMs + 1 + Math.floor(random() * 200), [...new Set(accounts)]))
    }
    const order = closed.map((window) => window.seq).sort(() => random() - 0.5)
    for (const seq of order) addClosedWindow(windows, windows.windows[seq - 1])
    const instants = [...new Set(closed.flatMap((window) => [window.startMs - 1, window.startMs, window.endMs - 1, window.endMs]))]
    const wrong: string[] = []
    for (const atMs of instants) {
      for (const accounts of [[1], [2, 3], [1, 2, 3, 4], [5]]) {
        const got = closedWindowsAt(windows, accounts, atMs).map((window) => window.seq)
        const want = modelAt(closed, accounts, atMs)
        if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push(`${atMs} ${accounts}: ${got} not ${want}`)
      }
    }
    t.same(wrong, [], `seed ${seed}: ${instants.length} instants`)
  }
})

t.test('a back-dated posting counts once in each closed window holding it; a later one in none', async (t) => {
  const windows = createWindowsState()
  const first = closedWindow(windows, 100, 200, [1, 2])
  const second = closedWindow(windows, 150, 300, [2])
  addClosedWindow(windows, first)
  addClosedWindow(windows, second)
  const post = (atMs: number, accounts: number[]) => applyEntryToClosedWindows(windows, { effectiveAtMs: atMs } as Entry, new Map(accounts.map((seq) => [seq, 1])))
  post(160, [1, 2])
  t.same([first.postCloseEntryCount, second.postCloseEntryCount], [1, 1], 'both, once each, though it touches window 1 on two accounts')
  post(250, [2])
  t.same([first.postCloseEntryCount, second.postCloseEntryCount], [1, 2])
  post(300, [1, 2])
  post(50, [1, 2])
  t.same([first.postCloseEntryCount, second.postCloseEntryCount], [1, 2], 'outside every period: no change')
  post(120, [3])
  t.same([first.postCloseEntryCount, second.postCloseEntryCount], [1, 2], 'another account: no change')
})
