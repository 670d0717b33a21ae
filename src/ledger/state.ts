/** @module The in-memory state of one workspace: accounts, entries and their indexes, idempotency records. */

import { DoublesArena, SumTree } from './sum-tree.js'
import { createWebhooksState, type WebhooksState } from './webhooks-state.js'
import { createWindowsState, type WindowsState } from './windows-state.js'

export interface Account {
  readonly id: string
  readonly seq: number
  name: string
  tags: readonly string[]
  readonly createdAtMs: number
  /** ISO 4217; changes only while no entry line or window is on the account. */
  currency: string
  /** The bank's identifier of the account (IBAN, account number), unique in the workspace; null when none. */
  externalId: string | null
  /** Every line on this account keyed by (effectiveAtMs, entry seq): balance-at in O(log n). */
  readonly index: SumTree
}

export interface EntryLine {
  readonly accountSeq: number
  readonly amount: number
}

export interface Entry {
  readonly id: string
  readonly seq: number
  readonly lines: readonly EntryLine[]
  readonly effectiveAtMs: number
  readonly postedAtMs: number
  readonly description: string | null
  readonly metadata: Readonly<Record<string, string>> | null
}

/** A stored 2xx answer to a request that carried an Idempotency-Key (CONTRACT.md 5). */
export interface IdempotencyRecord {
  readonly key: string
  readonly fingerprint: string
  readonly status: number
  readonly body: string
  readonly createdAtMs: number
  /** The key that made the request (absent in records older than this field: seen by unrestricted keys only). */
  readonly keyId?: string
  /**
   * The accounts (by seq) the stored answer shows: a replay goes to a restricted key only when it sees
   * them all, as a read would. null: the answer shows no account but a secret (a webhook's), so only its
   * own key and unrestricted keys get it.
   */
  readonly accountSeqs?: readonly number[] | null
}

export interface WorkspaceState {
  readonly workspaceId: string
  /** Random per workspace, part of every id, so ids never collide across workspaces. */
  readonly tag: string
  /** accounts[seq - 1]; seqs are dense from 1. */
  readonly accounts: Account[]
  readonly accountsByName: Map<string, Account>
  readonly accountsByExternalId: Map<string, Account>
  /** entries[seq - 1]; seqs are dense from 1. */
  readonly entries: Entry[]
  /** Every entry keyed by (effectiveAtMs, seq), amount 0: the order of the entry list. */
  readonly entryOrder: SumTree
  /** Where this workspace's trees (entryOrder, every account's index) cut their node arrays from. */
  readonly treeArena: DoublesArena
  readonly idempotency: Map<string, IdempotencyRecord>
  /** Keys in creation order, so expiry pops from the front without scanning the map. */
  readonly idempotencyOrder: string[]
  idempotencyOrderHead: number
  readonly windows: WindowsState
  readonly webhooks: WebhooksState
  /** Seals closed windows (seal.ts); null only in bare ledger tests, whose closed windows then carry no seal. */
  readonly sealHasher: SealHasher | null
}

/**
 * SHA-256 over the concatenation of the chunks, lowercase hex. node:crypto's, handed in by whoever makes
 * the state (src/exports/sha256.ts): the core imports nothing beyond itself (test/ledger/purity.test.ts),
 * and a hash is deterministic, so replay and restore seal alike.
 */
export type SealHasher = (chunks: Iterable<string>) => string

export function createWorkspaceState(workspaceId: string, tag: string, sealHasher: SealHasher | null = null): WorkspaceState {
  const treeArena = new DoublesArena()
  return {
    workspaceId,
    tag,
    accounts: [],
    accountsByName: new Map(),
    accountsByExternalId: new Map(),
    entries: [],
    entryOrder: new SumTree({ allocator: treeArena }),
    treeArena,
    idempotency: new Map(),
    idempotencyOrder: [],
    idempotencyOrderHead: 0,
    windows: createWindowsState(),
    webhooks: createWebhooksState(),
    sealHasher,
  }
}
