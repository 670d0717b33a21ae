/** @module The entry list: filters by account, window and period, ordered by effective_at then id. */

import { reject } from '../errors.js'
import { findAccount } from './accounts.js'
import { entryView, isEntryVisible } from './entries.js'
import { accept, type Outcome } from './outcome.js'
import { collectPage, compareKeys, decodeCursor, invalidCursor, listScope, mergeOrdered, type OrderKey } from './pages.js'
import type { WorkspaceState } from './state.js'
import type { Visibility } from './visibility.js'
import { findWindow } from './window-effects.js'

export interface EntryListQuery {
  readonly account: string | null
  readonly reconciliation: string | null
  readonly fromMs: number | null
  readonly toMs: number | null
  readonly limit: number
  readonly cursor: string | null
}

export function listEntries(state: WorkspaceState, query: EntryListQuery, visibility: Visibility): Outcome {
  let start: OrderKey = { atMs: query.fromMs ?? Number.MIN_SAFE_INTEGER, seq: 0 }
  let endMs = query.toMs ?? Number.MAX_SAFE_INTEGER
  let trees = [state.entryOrder]
  let accountId: string | null = null
  if (query.account !== null) {
    const account = findAccount(state, query.account, visibility)
    if (account === undefined) return reject('account_unknown', `Unknown account: ${query.account}.`, [{ path: '/account', message: 'unknown account' }])
    trees = [account.index]
    accountId = account.id
  }
  let windowId: string | null = null
  if (query.reconciliation !== null) {
    const window = findWindow(state, query.reconciliation, visibility)
    if (window === undefined) return reject('not_found', 'No such reconciliation.', [{ path: '/reconciliation', message: 'unknown reconciliation' }])
    const accountTrees = window.accountSeqs.map((seq) => state.accounts[seq - 1].index)
    trees = query.account === null ? accountTrees : accountTrees.filter((tree) => tree === trees[0])
    if (window.startMs > start.atMs) start = { atMs: window.startMs, seq: 0 }
    endMs = Math.min(endMs, window.endMs)
    windowId = window.id
  }
  // Resolved ids, not the text given: a cursor survives naming the account by id on one page and by name on the next.
  const scope = listScope('entries', accountId, windowId, query.fromMs, query.toMs)
  if (query.cursor !== null) {
    const cursor = decodeCursor(scope, query.cursor)
    if (cursor === null) return invalidCursor()
    if (compareKeys(cursor, start) > 0) start = cursor
  }
  const keys = mergeOrdered(trees.map((tree) => tree.iterateFrom(start.atMs, start.seq)))
  const bounded = takeWhileBefore(keys, endMs)
  return accept(200, collectPage(scope, bounded, query.limit, (key) => {
    const entry = state.entries[key.seq - 1]
    return isEntryVisible(state, entry, visibility) ? entryView(state, entry) : undefined
  }))
}

/** Keys before endMs, from keys in ascending order. */
export function* takeWhileBefore(keys: Iterator<OrderKey>, endMs: number): Generator<OrderKey> {
  for (let next = keys.next(); next.done !== true; next = keys.next()) {
    if (next.value.atMs >= endMs) return
    yield next.value
  }
}
