/**
 * @module What subscribe and unsubscribe read in the workspace (docs/API.md, WebSocket API and live updates):
 * ids and names resolved with the key's visibility, the current value of each topic, all or nothing.
 */

import { reject, type ErrorDetail } from '../errors.js'
import { findAccount } from '../ledger/accounts.js'
import { accept, type Outcome } from '../ledger/outcome.js'
import type { Account, WorkspaceState } from '../ledger/state.js'
import type { Visibility } from '../ledger/visibility.js'
import { findWindow } from '../ledger/window-effects.js'
import type { ReconciliationWindow } from '../ledger/windows-state.js'
import { accountTopic, balanceMessage, windowMessage, windowTopic } from './live-watch.js'

/** A subscription's answer: the ids as resolved, and each topic with its current value (in that order). */
export interface Subscribed {
  readonly reconciliations: readonly string[]
  readonly accounts: readonly string[]
  readonly initial: readonly (readonly [string, string])[]
}

/** The current value of every topic named, or 404 naming each unknown or invisible one (nothing is watched then). */
export function subscribed(state: WorkspaceState, windowIds: readonly string[], accountRefs: readonly string[], visibility: Visibility, atMs: number): Outcome {
  const details: ErrorDetail[] = []
  const windows: ReconciliationWindow[] = []
  const accounts: Account[] = []
  windowIds.forEach((id, index) => {
    const window = findWindow(state, id, visibility)
    if (window === undefined) details.push({ path: `/reconciliations/${index}`, message: `no reconciliation ${id}` })
    else windows.push(window)
  })
  accountRefs.forEach((reference, index) => {
    const account = findAccount(state, reference, visibility)
    if (account === undefined) details.push({ path: `/accounts/${index}`, message: `no account ${reference}` })
    else accounts.push(account)
  })
  if (details.length > 0) return reject('not_found', `Nothing to watch at ${details[0].path}.`, details)
  const initial: [string, string][] = []
  for (const window of windows) initial.push([windowTopic(window), windowMessage(state, window)])
  for (const account of accounts) initial.push([accountTopic(account), balanceMessage(state, account, atMs)])
  const body: Subscribed = { reconciliations: windows.map((window) => window.id), accounts: accounts.map((account) => account.id), initial }
  return accept(200, body)
}

/** The ids of the accounts named that the key sees (an id or name it cannot resolve is no topic of its anyway). */
export function unsubscribed(state: WorkspaceState, accountRefs: readonly string[], visibility: Visibility): Outcome {
  const accounts = accountRefs.map((reference) => findAccount(state, reference, visibility)).filter((account) => account !== undefined)
  return accept(200, { accounts: accounts.map((account) => account.id) })
}
