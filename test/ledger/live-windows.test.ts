/** The live-window index (src/ledger/live-windows.ts): binary search over an account's disjoint live windows agrees with a scan of all of them. */
import fc from 'fast-check'
import t from 'tap'
import { addLiveWindow, liveWindowAt, liveWindowMeeting, removeLiveWindow } from '../../src/ledger/live-windows.js'
import { createWindowsState, type ReconciliationWindow, type WindowsState } from '../../src/ledger/windows-state.js'

/** Only the fields the index reads. */
function windowOf(seq: number, accountSeqs: number[], startMs: number, endMs: number): ReconciliationWindow {
  return { id: `rec_${seq}`, seq, accountSeqs, startMs, endMs } as unknown as ReconciliationWindow
}

function scanAllMeeting(state: WindowsState, live: ReadonlySet<number>, accountSeq: number, startMs: number, endMs: number): number[] {
  return [...live].map((seq) => state.windows[seq - 1]).filter((window) => window.accountSeqs.includes(accountSeq) && window.startMs < endMs && startMs < window.endMs).map((window) => window.seq)
}

function scanMeeting(state: WindowsState, live: ReadonlySet<number>, accountSeq: number, startMs: number, endMs: number): number | undefined {
  return scanAllMeeting(state, live, accountSeq, startMs, endMs)[0]
}

/** A period may meet several disjoint windows: the index must name one of them, and none exactly when the scan finds none. */
function meetsAsScan(found: number | undefined, meeting: readonly number[]): boolean {
  return found === undefined ? meeting.length === 0 : meeting.includes(found)
}

const operation = fc.oneof(
  fc.record({ kind: fc.constant('open' as const), accounts: fc.subarray([1, 2, 3], { minLength: 1 }), startMs: fc.integer({ min: 0, max: 200 }), lengthMs: fc.integer({ min: 1, max: 30 }) }),
  fc.record({ kind: fc.constant('close' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('probe' as const), account: fc.constantFrom(1, 2, 3), startMs: fc.integer({ min: -5, max: 240 }), lengthMs: fc.integer({ min: 1, max: 30 }) }),
)

t.test('index and scan agree over random opens, closes and probes', async (t) => {
  let probes = 0
  fc.assert(fc.property(fc.array(operation, { maxLength: 80 }), (operations) => {
    const state = createWindowsState()
    const live = new Set<number>()
    for (const step of operations) {
      if (step.kind === 'open') {
        const window = windowOf(state.windows.length + 1, step.accounts, step.startMs, step.startMs + step.lengthMs)
        // Opening refuses an overlap on any account (window_overlap), so only a window meeting none is added.
        if (step.accounts.some((account) => scanMeeting(state, live, account, window.startMs, window.endMs) !== undefined)) continue
        state.windows.push(window)
        addLiveWindow(state, window)
        live.add(window.seq)
      } else if (step.kind === 'close') {
        const seqs = [...live]
        if (seqs.length === 0) continue
        const seq = seqs[step.pick % seqs.length]
        removeLiveWindow(state, state.windows[seq - 1])
        live.delete(seq)
      } else {
        probes++
        const endMs = step.startMs + step.lengthMs
        if (!meetsAsScan(liveWindowMeeting(state, step.account, step.startMs, endMs)?.seq, scanAllMeeting(state, live, step.account, step.startMs, endMs))) return false
        if (liveWindowAt(state, step.account, step.startMs)?.seq !== scanMeeting(state, live, step.account, step.startMs, step.startMs + 1)) return false
      }
    }
    for (const [account, seqs] of state.liveWindowsByAccount) {
      const starts = seqs.map((seq) => state.windows[seq - 1].startMs)
      if (starts.some((startMs, index) => index > 0 && startMs <= starts[index - 1])) return false
      if (seqs.some((seq) => !live.has(seq) || !state.windows[seq - 1].accountSeqs.includes(account))) return false
    }
    return [...live].every((seq) => state.windows[seq - 1].accountSeqs.every((account) => state.liveWindowsByAccount.get(account)?.includes(seq)))
  }), { numRuns: 1000 })
  t.ok(probes > 500, `${probes} probes`)
})
