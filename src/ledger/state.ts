/** @module The in-memory state of one workspace: accounts, entries and their indexes, idempotency records. */

import { makeId } from './ids.js'
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

/**
 * A posted entry. A workspace holds a million of them, and under a write load every posting is copied
 * twice by V8's young-generation collector (once within the young space, once out of it) while requests
 * wait: so an entry is three objects and its description, not nine. Its timestamps and lines share one
 * array of doubles (no heap number per timestamp, no object per line) and its id is made from the
 * workspace tag and seq when asked for (ids.ts: it is a function of them). `lines` builds the
 * line objects on each read; code on the hot path reads `lineCount`, `lineAccountSeq(i)`, `lineAmount(i)`.
 */
export class Entry {
  readonly seq: number
  /** The workspace tag, shared by every entry of the workspace: the id is made from it. */
  readonly tag: string
  /** effectiveAtMs, postedAtMs, then the account seq and the amount of each line in turn. */
  readonly data: readonly number[]
  /** undefined in an entry of a record from before descriptions existed (left out of its JSON). */
  readonly description: string | null
  readonly metadata: Readonly<Record<string, string>> | null

  constructor(tag: string, seq: number, data: readonly number[], description: string | null, metadata: Readonly<Record<string, string>> | null) {
    this.seq = seq
    this.tag = tag
    this.data = data
    this.description = description
    this.metadata = metadata
  }

  /** The entry's data array: its timestamps, then its lines' account seqs and amounts (given as in the entry). */
  static data(effectiveAtMs: number, postedAtMs: number, lines: readonly EntryLine[]): number[] {
    // A literal for the usual two lines: V8 then makes it as an array of doubles from the start.
    if (lines.length === 2) return [effectiveAtMs, postedAtMs, lines[0].accountSeq, lines[0].amount, lines[1].accountSeq, lines[1].amount]
    // Sized once: pushing would leave the grown array's spare capacity in every entry.
    const data = new Array<number>(2 + 2 * lines.length)
    data[0] = effectiveAtMs
    data[1] = postedAtMs
    for (let i = 0; i < lines.length; i++) {
      data[2 + 2 * i] = lines[i].accountSeq
      data[3 + 2 * i] = lines[i].amount
    }
    return data
  }

  get id(): string {
    return makeId('ent_', this.tag, this.seq)
  }

  get effectiveAtMs(): number {
    return this.data[0]
  }

  get postedAtMs(): number {
    return this.data[1]
  }

  get lineCount(): number {
    return (this.data.length - 2) / 2
  }

  lineAccountSeq(index: number): number {
    return this.data[2 + 2 * index]
  }

  lineAmount(index: number): number {
    return this.data[3 + 2 * index]
  }

  /** The accounts the lines are on, each once, in the order of the lines. */
  accountSeqs(): number[] {
    const seqs: number[] = []
    for (let i = 2; i < this.data.length; i += 2) if (!seqs.includes(this.data[i])) seqs.push(this.data[i])
    return seqs
  }

  /** The lines as objects, made on each read. */
  get lines(): EntryLine[] {
    const lines = new Array<EntryLine>(this.lineCount)
    for (let i = 0; i < lines.length; i++) lines[i] = { accountSeq: this.data[2 + 2 * i], amount: this.data[3 + 2 * i] }
    return lines
  }
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
