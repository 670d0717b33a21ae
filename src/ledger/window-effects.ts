/** @module Live window figures: derived movement, residual and state, and how a posting moves them. */

import { reject, type Rejection } from '../errors.js'
import { movementOver } from './balances.js'
import type { CommandEnvelope } from './commands.js'
import { parseId } from './ids.js'
import { liveWindowAt } from './live-windows.js'
import { addSafe } from './money.js'
import type { Entry, WorkspaceState } from './state.js'
import { isVisible, type Visibility } from './visibility.js'
import type { ReconciliationWindow, WindowStateName } from './windows-state.js'

export function isTerminal(state: WindowStateName): boolean {
  return state === 'closed' || state === 'abandoned'
}

/** A window by id, only when the key can see every one of its accounts. */
export function findWindow(state: WorkspaceState, id: string, visibility: Visibility): ReconciliationWindow | undefined {
  const seq = parseId('rec_', state.tag, id)
  const window = seq > 0 ? state.windows.windows[seq - 1] : undefined
  if (window === undefined) return undefined
  if (visibility !== null && !window.accountSeqs.every((accountSeq) => isVisible(visibility, state.accounts[accountSeq - 1].name))) return undefined
  return window
}

/** Derived movement as it stands: frozen once terminal, else summed live from the balance index. */
export function derivedOf(state: WorkspaceState, window: ReconciliationWindow): number | null {
  if (window.frozenDerived !== null) return window.frozenDerived
  return movementOver(state, window.accountSeqs, window.startMs, window.endMs)
}

/** residual = claimed_movement − derived_movement − Σ matched_amount of active matches. */
export function residualFrom(window: ReconciliationWindow, derived: number, matchedTotal: number): number | null {
  const afterDerived = addSafe(window.claimedMovement, -derived)
  return afterDerived === null ? null : addSafe(afterDerived, -matchedTotal)
}

export function residualOf(state: WorkspaceState, window: ReconciliationWindow): number {
  if (window.frozenResidual !== null) return window.frozenResidual
  const derived = derivedOf(state, window)
  const residual = derived === null ? null : residualFrom(window, derived, window.matchedTotal)
  if (residual === null) throw new RangeError(`window ${window.id} figures left the safe range`)
  return residual
}

/** balanced exactly when the residual is 0 and there is at least one active match (docs/API.md, Reconciliation windows). */
export function liveStateOf(window: ReconciliationWindow, residual: number): WindowStateName {
  return residual === 0 && window.activeMatchCount > 0 ? 'balanced' : 'open'
}

/**
 * Records a change in the window history, then a flip of the live state if it caused one. The state is
 * re-evaluated first, so the change's own event carries the state and residual as they are after the
 * command, never a mix of before and after. The flip (with its cause) comes last: events.ts reads it there.
 * Returns the residual after the change.
 */
export function recordChange(state: WorkspaceState, window: ReconciliationWindow, command: CommandEnvelope, type: string, detail: Record<string, unknown>, cause: Record<string, unknown>): number {
  const residual = residualOf(state, window)
  const from = window.state
  const next = isTerminal(from) ? from : liveStateOf(window, residual)
  window.state = next
  window.history.push({ type, atMs: command.at_ms, keyId: command.key_id, state: next, residual, detail })
  if (next !== from) window.history.push({ type: next, atMs: command.at_ms, keyId: command.key_id, state: next, residual, detail: { from, ...cause } })
  return residual
}

export function windowAmountOf(window: ReconciliationWindow, perAccount: ReadonlyMap<number, number>): number {
  let amount = 0
  for (const accountSeq of window.accountSeqs) amount += perAccount.get(accountSeq) ?? 0
  return amount
}

const noWindows: readonly ReconciliationWindow[] = Object.freeze([])

/**
 * The live windows whose period holds the entry, on any of its accounts: at most one per account, each once.
 * An array, built only when there is one (an entry has a few accounts, so `includes` beats a Set): a batch
 * asks this three times per entry, and a generator and a Set each time were 4 % of a batch of 8,190.
 */
export function liveWindowsTouched(state: WorkspaceState, entry: Pick<Entry, 'effectiveAtMs'>, perAccount: ReadonlyMap<number, number>): readonly ReconciliationWindow[] {
  let touched: ReconciliationWindow[] | null = null
  for (const accountSeq of perAccount.keys()) {
    const window = liveWindowAt(state.windows, accountSeq, entry.effectiveAtMs)
    if (window === undefined) continue
    if (touched === null) touched = [window]
    else if (!touched.includes(window)) touched.push(window)
  }
  return touched ?? noWindows
}

/** Whether an account of the posting has a live window at all: most postings have none, and then skip the walk. */
export function touchesLiveWindows(state: WorkspaceState, perAccount: ReadonlyMap<number, number>): boolean {
  const live = state.windows.liveWindowsByAccount
  if (live.size === 0) return false
  for (const accountSeq of perAccount.keys()) {
    if (live.has(accountSeq)) return true
  }
  return false
}

/** A posting may not push a live window's figures out of the safe range. */
export function checkEntryAgainstWindows(state: WorkspaceState, entry: Pick<Entry, 'effectiveAtMs'>, perAccount: ReadonlyMap<number, number>): Rejection | null {
  if (!touchesLiveWindows(state, perAccount)) return null
  for (const window of liveWindowsTouched(state, entry, perAccount)) {
    const derived = derivedOf(state, window)
    const next = derived === null ? null : addSafe(derived, windowAmountOf(window, perAccount))
    if (next === null || residualFrom(window, next, window.matchedTotal) === null) {
      return reject('amount_out_of_range', `The figures of window ${window.id} would leave the safe integer range.`)
    }
  }
  return null
}

/** After a posting lands: record it in each live window whose period it falls in, and re-evaluate. */
export function applyEntryToWindows(state: WorkspaceState, entry: Entry, perAccount: ReadonlyMap<number, number>, command: CommandEnvelope): void {
  if (!touchesLiveWindows(state, perAccount)) return
  for (const window of liveWindowsTouched(state, entry, perAccount)) {
    const amount = windowAmountOf(window, perAccount)
    recordChange(state, window, command, 'entry_posted', { entry: entry.id, amount }, { cause: 'entry_posted', entry: entry.id })
  }
}
