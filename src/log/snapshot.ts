/** @module Workspace snapshots: the primary facts of a workspace at a log seq; indexes are rebuilt on load. */

import assert from 'node:assert/strict'
import type { RootDatabase } from 'lmdb'
import type { WorkspaceActor } from '../actor/workspace-actor.js'
import { amountsPerAccount } from '../ledger/entries.js'
import { SumTree } from '../ledger/sum-tree.js'
import { createWorkspaceState, type Account, type Entry, type IdempotencyRecord, type WorkspaceState } from '../ledger/state.js'
import type { Match, ReconciliationWindow } from '../ledger/windows-state.js'
import type { KeyRecord, SystemState, WorkspaceRecord } from '../ledger/system.js'
import { decodeValue, encodeValue } from './codec.js'

export const snapshotVersion = 1

export interface LoadedSnapshot {
  readonly seq: number
  readonly state: WorkspaceState
}

interface SnapshotAccount { readonly id: string; readonly seq: number; readonly name: string; readonly tags: readonly string[]; readonly createdAtMs: number }
type SnapshotWindow = Omit<ReconciliationWindow, 'matchedEntries'> & { readonly matchedEntries: [number, number][] }

interface SnapshotBody {
  readonly v: number
  readonly seq: number
  readonly workspaceId: string
  readonly tag: string
  readonly accounts: SnapshotAccount[]
  readonly entries: Entry[]
  readonly idempotency: IdempotencyRecord[]
  readonly windows: SnapshotWindow[]
  readonly matches: Match[]
}

function snapshotsDb(root: RootDatabase) {
  return root.openDB<Buffer, string>({ name: 'snapshots', encoding: 'binary' })
}

function toBody(seq: number, state: WorkspaceState): SnapshotBody {
  const idempotency: IdempotencyRecord[] = []
  for (let i = state.idempotencyOrderHead; i < state.idempotencyOrder.length; i++) {
    const record = state.idempotency.get(state.idempotencyOrder[i])
    if (record !== undefined && record.key === state.idempotencyOrder[i]) idempotency.push(record)
  }
  return {
    v: snapshotVersion,
    seq,
    workspaceId: state.workspaceId,
    tag: state.tag,
    accounts: state.accounts.map(({ id, seq: accountSeq, name, tags, createdAtMs }) => ({ id, seq: accountSeq, name, tags, createdAtMs })),
    entries: state.entries,
    idempotency,
    windows: state.windows.windows.map((window) => ({ ...window, matchedEntries: [...window.matchedEntries] })),
    matches: state.windows.matches,
  }
}

/**
 * Queues the snapshot write; LMDB commits it after every log record it covers (they are durable
 * already). seq may be any durable seq at or past the actor's last applied one: the state reflects
 * every record of this workspace up to it.
 */
export function writeSnapshot(root: RootDatabase, actor: WorkspaceActor, seq: number): void {
  assert.ok(seq >= actor.lastAppliedSeq)
  void snapshotsDb(root).put(actor.id, encodeValue(toBody(seq, actor.state)))
}

function fromBody(body: SnapshotBody): WorkspaceState {
  assert.equal(body.v, snapshotVersion, 'unknown snapshot version')
  const state = createWorkspaceState(body.workspaceId, body.tag)
  for (const account of body.accounts) {
    const restored: Account = { ...account, tags: [...account.tags], index: new SumTree() }
    assert.equal(restored.seq, state.accounts.length + 1)
    state.accounts.push(restored)
    state.accountsByName.set(restored.name, restored)
  }
  for (const entry of body.entries) {
    assert.equal(entry.seq, state.entries.length + 1)
    for (const [accountSeq, amount] of amountsPerAccount(entry.lines)) state.accounts[accountSeq - 1].index.insert(entry.effectiveAtMs, entry.seq, amount)
    state.entries.push(entry)
    state.entryOrder.insert(entry.effectiveAtMs, entry.seq, 0)
  }
  for (const record of body.idempotency) {
    state.idempotency.set(record.key, record)
    state.idempotencyOrder.push(record.key)
  }
  for (const stored of body.windows) {
    const window: ReconciliationWindow = { ...stored, matchedEntries: new Map(stored.matchedEntries) }
    state.windows.windows.push(window)
    if (window.state === 'closed' || window.state === 'abandoned') continue
    for (const accountSeq of window.accountSeqs) {
      const live = state.windows.liveWindowsByAccount.get(accountSeq) ?? new Set<number>()
      live.add(window.seq)
      state.windows.liveWindowsByAccount.set(accountSeq, live)
    }
  }
  for (const match of body.matches) state.windows.matches.push(match)
  return state
}

export function loadSnapshots(root: RootDatabase): Map<string, LoadedSnapshot> {
  const loaded = new Map<string, LoadedSnapshot>()
  for (const { key, value } of snapshotsDb(root).getRange({})) {
    if (key === systemKey) continue
    const body = decodeValue(value) as SnapshotBody
    assert.equal(body.workspaceId, key)
    loaded.set(key, { seq: body.seq, state: fromBody(body) })
  }
  return loaded
}

/** The key under which the system snapshot is stored; workspace ids cannot contain a space. */
const systemKey = ' system'

interface SystemSnapshotBody {
  readonly v: number
  readonly seq: number
  readonly workspaces: WorkspaceRecord[]
  readonly keys: KeyRecord[]
}

export function writeSystemSnapshot(root: RootDatabase, seq: number, system: SystemState): void {
  const body: SystemSnapshotBody = { v: snapshotVersion, seq, workspaces: [...system.workspaces.values()], keys: [...system.keys.values()] }
  void snapshotsDb(root).put(systemKey, encodeValue(body))
}

export function loadSystemSnapshot(root: RootDatabase): { seq: number; state: SystemSnapshotBody } | undefined {
  const bytes = snapshotsDb(root).get(systemKey)
  if (bytes === undefined) return undefined
  const body = decodeValue(bytes) as SystemSnapshotBody
  assert.equal(body.v, snapshotVersion, 'unknown system snapshot version')
  return { seq: body.seq, state: body }
}

export function restoreSystem(system: SystemState, body: SystemSnapshotBody): void {
  assert.equal(system.workspaces.size, 0)
  for (const workspace of body.workspaces) {
    system.workspaces.set(workspace.id, { ...workspace })
    system.tags.add(workspace.tag)
  }
  for (const stored of body.keys) {
    const key: KeyRecord = { ...stored }
    system.keys.set(key.id, key)
    if (key.revokedAtMs === null) system.keysByHash.set(key.secretHash, key)
  }
}
