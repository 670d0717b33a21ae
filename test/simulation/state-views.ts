/**
 * @module Simulation: the text a triple check compares. The same facts must give the same text whether
 * the state was built live, replayed from the log, or restored from a snapshot plus the log after it.
 *
 * Two parts of the state are bookkeeping whose shape depends on the path taken, not on the facts, and
 * are compared by content instead: the idempotency expiry queue (a restore rebuilds it from the records
 * alive, without the already-expired prefix; live keeps a head index into it) and the insertion order of
 * the live-windows-by-account map (a restore inserts accounts in window order), and of the accounts-by-name
map (a rename moves a name to the end of it live; a restore inserts names in account order). None of
the three is ever iterated by src/ledger, so their order is not a fact. Everything else,
 * the balance trees' points included, is compared as stableSerialize writes it.
 */

import type { WorkspaceState } from '../../src/ledger/state.ts'
import type { SystemState } from '../../src/ledger/system.ts'
import { stableSerialize } from '../support/state-fingerprint.ts'
import type { States } from './adapter.ts'

export function workspaceText(state: WorkspaceState): string {
  const { idempotency, idempotencyOrder, idempotencyOrderHead, treeArena, windows, accountsByName, ...rest } = state
  void idempotencyOrder
  void idempotencyOrderHead
  void treeArena
  const live = [...windows.liveWindowsByAccount].sort(([a], [b]) => a - b).map(([account, seqs]) => [account, [...seqs].sort((a, b) => a - b)])
  return stableSerialize({
    ...rest,
    accountsByName: [...accountsByName].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, account]) => [name, account.seq]),
    idempotency: [...idempotency.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
    windows: { windows: windows.windows, matches: windows.matches, liveWindowsByAccount: live },
  })
}

export function systemText(system: SystemState): string {
  return stableSerialize(system)
}

/** Where two states differ ('' when they do not), named by workspace. */
export function statesDifference(expected: States, actual: States, labels: readonly [string, string]): string {
  const [a, b] = labels
  if (systemText(expected.system) !== systemText(actual.system)) return `system state: ${a} and ${b} differ`
  const ids = [...new Set([...expected.workspaces.keys(), ...actual.workspaces.keys()])].sort()
  for (const id of ids) {
    const left = expected.workspaces.get(id)
    const right = actual.workspaces.get(id)
    if (left === undefined || right === undefined) return `workspace ${id} exists only in ${left === undefined ? b : a}`
    const leftText = workspaceText(left)
    const rightText = workspaceText(right)
    if (leftText !== rightText) return `workspace ${id}: ${a} and ${b} differ ${firstDifferenceOf(leftText, rightText)}`
  }
  return ''
}

function firstDifferenceOf(left: string, right: string): string {
  let index = 0
  while (index < left.length && index < right.length && left[index] === right[index]) index++
  const from = Math.max(0, index - 160)
  return `at character ${index}: …${left.slice(from, index + 160)}… vs …${right.slice(from, index + 160)}…`
}
