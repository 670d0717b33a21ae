/** @module Workspace snapshots: the primary facts of a workspace at a log seq, checksummed; indexes are rebuilt on load. */

import assert from 'node:assert/strict'
import type { RootDatabase } from 'lmdb'
import type { WorkspaceActor } from '../actor/workspace-actor.js'
import { amountsPerAccount } from '../ledger/entries.js'
import { SumTree } from '../ledger/sum-tree.js'
import { createWorkspaceState, type Account, type Entry, type IdempotencyRecord, type WorkspaceState } from '../ledger/state.js'
import type { Match, ReconciliationWindow } from '../ledger/windows-state.js'
import type { WebhookSubscription } from '../ledger/webhooks.js'
import type { KeyRecord, SystemState, WorkspaceRecord } from '../ledger/system.js'
import { decodeValue, encodeValue, frame, unframe } from './codec.js'

export const snapshotVersion = 1

export interface LoadedSnapshot {
  readonly seq: number
  readonly state: WorkspaceState
}

/** A snapshot that cannot be used: start-up ignores it and rebuilds that state from the log. */
export interface UnusableSnapshot {
  /** The workspace id, or `system`. */
  readonly name: string
  readonly reason: string
}

/** Called when a snapshot write fails; a snapshot is an optimisation, the log stays complete. */
export type SnapshotWriteFailed = (name: string, error: Error) => void

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
  /** Absent in snapshots written before webhooks existed: no subscriptions then. */
  readonly webhooks?: { readonly lastSeq: number; readonly subscriptions: WebhookSubscription[] }
}

function snapshotsDb(root: RootDatabase) {
  return root.openDB<Buffer, string>({ name: 'snapshots', encoding: 'binary' })
}

/** The key bytes a snapshot's checksum covers: its LMDB key string in UTF-8. */
function keyBytes(key: string): Buffer {
  return Buffer.from(key, 'utf8')
}

function putSnapshot(root: RootDatabase, key: string, name: string, value: unknown, failed: SnapshotWriteFailed): void {
  const bytes = frame(keyBytes(key), encodeValue(value))
  snapshotsDb(root).put(key, bytes).then(
    (written) => { if (!written) failed(name, new Error('LMDB did not write it')) },
    (error: unknown) => failed(name, error instanceof Error ? error : new Error(String(error))),
  )
}

/** The decoded body of a stored snapshot, or why there is none: never throws on damaged bytes. */
function readSnapshot(key: string, stored: Uint8Array): { ok: true; body: unknown } | { ok: false; reason: string } {
  const unframed = unframe(keyBytes(key), stored)
  if (!unframed.ok) return unframed
  try {
    return { ok: true, body: decodeValue(unframed.payload) }
  } catch (error) {
    return { ok: false, reason: `the checksum matches but the payload does not decode (${messageOf(error)})` }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
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
    webhooks: { lastSeq: state.webhooks.lastSeq, subscriptions: [...state.webhooks.subscriptions.values()] },
  }
}

/**
 * Queues the snapshot write; LMDB commits it after every log record it covers (they are durable
 * already). seq may be any durable seq at or past the actor's last applied one: the state reflects
 * every record of this workspace up to it.
 */
export function writeSnapshot(root: RootDatabase, actor: WorkspaceActor, seq: number, failed: SnapshotWriteFailed): void {
  assert.ok(seq >= actor.lastAppliedSeq)
  putSnapshot(root, actor.id, `workspace ${actor.id}`, toBody(seq, actor.state), failed)
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
  if (body.webhooks !== undefined) {
    state.webhooks.lastSeq = body.webhooks.lastSeq
    for (const subscription of body.webhooks.subscriptions) state.webhooks.subscriptions.set(subscription.id, subscription)
  }
  return state
}

export interface LoadedSnapshots {
  readonly workspaces: Map<string, LoadedSnapshot>
  readonly unusable: UnusableSnapshot[]
}

/**
 * Every workspace snapshot that passes its checksum and rebuilds cleanly. A damaged one is left out
 * and named in `unusable`; its workspace is rebuilt from the log, which is never truncated.
 */
export function loadSnapshots(root: RootDatabase): LoadedSnapshots {
  const workspaces = new Map<string, LoadedSnapshot>()
  const unusable: UnusableSnapshot[] = []
  for (const { key, value } of snapshotsDb(root).getRange({})) {
    if (key === systemKey) continue
    const read = readSnapshot(key, value)
    if (!read.ok) {
      unusable.push({ name: `workspace ${key}`, reason: read.reason })
      continue
    }
    try {
      const body = read.body as SnapshotBody
      assert.equal(body.workspaceId, key, 'the snapshot names another workspace')
      assert.ok(Number.isSafeInteger(body.seq) && body.seq >= 1, 'the snapshot has no seq')
      workspaces.set(key, { seq: body.seq, state: fromBody(body) })
    } catch (error) {
      // The checksum held, so these bytes are what was written: a bug, not the disk. Replay is still right.
      unusable.push({ name: `workspace ${key}`, reason: `the checksum matches but the body does not rebuild (${messageOf(error)})` })
    }
  }
  return { workspaces, unusable }
}

/** The key under which the system snapshot is stored; workspace ids cannot contain a space. */
const systemKey = ' system'

interface SystemSnapshotBody {
  readonly v: number
  readonly seq: number
  readonly workspaces: WorkspaceRecord[]
  readonly keys: KeyRecord[]
}

export function writeSystemSnapshot(root: RootDatabase, seq: number, system: SystemState, failed: SnapshotWriteFailed): void {
  const body: SystemSnapshotBody = { v: snapshotVersion, seq, workspaces: [...system.workspaces.values()], keys: [...system.keys.values()] }
  putSnapshot(root, systemKey, 'system', body, failed)
}

export type SystemSnapshotRead =
  | { readonly ok: true; readonly seq: number; readonly state: SystemSnapshotBody }
  | { readonly ok: false; readonly unusable: UnusableSnapshot }

/** The system snapshot, undefined when there is none, or why it cannot be used. */
export function loadSystemSnapshot(root: RootDatabase): SystemSnapshotRead | undefined {
  const bytes = snapshotsDb(root).get(systemKey)
  if (bytes === undefined) return undefined
  const read = readSnapshot(systemKey, bytes)
  if (!read.ok) return { ok: false, unusable: { name: 'system', reason: read.reason } }
  const body = read.body as SystemSnapshotBody
  if (body === null || typeof body !== 'object' || body.v !== snapshotVersion || !Number.isSafeInteger(body.seq) || !Array.isArray(body.workspaces) || !Array.isArray(body.keys)) {
    return { ok: false, unusable: { name: 'system', reason: 'the checksum matches but the body is not a system snapshot of this version' } }
  }
  return { ok: true, seq: body.seq, state: body }
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
