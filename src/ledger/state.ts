/** @module The in-memory state of one workspace: accounts, entries and their indexes, idempotency records. */

import { makeId } from './ids.js'
import { DoublesArena, SumTree } from './sum-tree.js'
import { createMatchingRulesState, type MatchingRulesState } from './matching-rules-state.js'
import { createApprovalsState, type ApprovalsState } from './approvals-state.js'
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
 * The timestamps and lines of a workspace's entries, one after another in one array of doubles:
 * per entry its line count, effectiveAtMs, postedAtMs, then the account seq and amount of each line.
 * Append-only: an entry keeps its offset for good, so entries of two states that share a store (a test
 * restoring the facts of a live state) still read their own values.
 */
export class EntryStore {
  readonly tag: string
  values: Float64Array
  /** How much of `values` is taken. */
  length = 0

  constructor(tag: string, capacity = 1024) {
    this.tag = tag
    this.values = new Float64Array(capacity)
  }

  /** Takes the place of an entry of `lineCount` lines, its timestamps written; answers where it starts. setLine writes its lines. */
  begin(lineCount: number, effectiveAtMs: number, postedAtMs: number): number {
    const count = 3 + 2 * lineCount
    if (this.length + count > this.values.length) this.#grow(this.length + count)
    const at = this.length
    this.length = at + count
    this.values[at] = lineCount
    this.values[at + 1] = effectiveAtMs
    this.values[at + 2] = postedAtMs
    return at
  }

  setLine(at: number, index: number, accountSeq: number, amount: number): void {
    this.values[at + 3 + 2 * index] = accountSeq
    this.values[at + 4 + 2 * index] = amount
  }

  /** The values taken (JSON.stringify, the tests' state fingerprints): not the spare capacity. */
  toJSON(): { tag: string; values: number[] } {
    return { tag: this.tag, values: Array.from(this.values.subarray(0, this.length)) }
  }

  #grow(needed: number): void {
    const values = new Float64Array(Math.max(needed, Math.ceil(this.values.length * 1.5), 1024))
    values.set(this.values.subarray(0, this.length))
    this.values = values
  }
}

/**
 * A posted entry. A workspace holds a million of them, and under a write load V8's young-generation
 * collector copies every new one twice (within the young space, then out of it) while requests wait:
 * so an entry is one object (and its description). Its timestamps and lines live in the workspace's
 * EntryStore, its id is made from the tag and seq when asked for (ids.ts: a function of them), and
 * `lines` builds line objects on each read: the hot paths read `lineCount`, `lineAccountSeq(i)` and
 * `lineAmount(i)`. Only a posted entry is one: entries.ts's CheckedEntry holds a checked one's fields
 * until applyEntry appends them here.
 */
export class Entry {
  readonly seq: number
  /** Where the values are. */
  readonly store: EntryStore
  readonly at: number
  /** undefined in an entry of a record from before descriptions existed (left out of its JSON). */
  readonly description: string | null
  readonly metadata: Readonly<Record<string, string>> | null

  constructor(seq: number, store: EntryStore, at: number, description: string | null, metadata: Readonly<Record<string, string>> | null) {
    this.seq = seq
    this.store = store
    this.at = at
    this.description = description
    this.metadata = metadata
  }

  /** An entry whose values are appended to `store`. */
  static create(seq: number, effectiveAtMs: number, postedAtMs: number, lines: readonly EntryLine[], description: string | null,
    metadata: Readonly<Record<string, string>> | null, store: EntryStore): Entry {
    const at = store.begin(lines.length, effectiveAtMs, postedAtMs)
    for (let i = 0; i < lines.length; i++) store.setLine(at, i, lines[i].accountSeq, lines[i].amount)
    return new Entry(seq, store, at, description, metadata)
  }

  get id(): string {
    return makeId('ent_', this.store.tag, this.seq)
  }

  get effectiveAtMs(): number {
    return this.store.values[this.at + 1]
  }

  get postedAtMs(): number {
    return this.store.values[this.at + 2]
  }

  get lineCount(): number {
    return this.store.values[this.at]
  }

  lineAccountSeq(index: number): number {
    return this.store.values[this.at + 3 + 2 * index]
  }

  lineAmount(index: number): number {
    return this.store.values[this.at + 4 + 2 * index]
  }

  /** The accounts the lines are on, each once, in the order of the lines. */
  accountSeqs(): number[] {
    const seqs: number[] = []
    for (let i = 0; i < this.lineCount; i++) {
      const accountSeq = this.lineAccountSeq(i)
      if (!seqs.includes(accountSeq)) seqs.push(accountSeq)
    }
    return seqs
  }

  /** The lines as objects, made on each read. */
  get lines(): EntryLine[] {
    const lines = new Array<EntryLine>(this.lineCount)
    for (let i = 0; i < lines.length; i++) lines[i] = { accountSeq: this.lineAccountSeq(i), amount: this.lineAmount(i) }
    return lines
  }

  /** What the entry is, field by field (JSON.stringify, the tests' state fingerprints): not where it is stored. */
  toJSON(): { id: string; seq: number; lines: EntryLine[]; effectiveAtMs: number; postedAtMs: number; description: string | null; metadata: Readonly<Record<string, string>> | null } {
    return { id: this.id, seq: this.seq, lines: this.lines, effectiveAtMs: this.effectiveAtMs, postedAtMs: this.postedAtMs, description: this.description, metadata: this.metadata }
  }
}

/** A stored 2xx answer to a request that carried an Idempotency-Key (docs/API.md, Retries and Idempotency-Key). */
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
  /** Their timestamps and lines. */
  readonly entryStore: EntryStore
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
  readonly matchingRules: MatchingRulesState
  readonly approvals: ApprovalsState
  /** Reversals (entry-reversal.ts): entry seq → seq of the entry that reversed it, and back. */
  readonly reversedBy: Map<number, number>
  readonly reverses: Map<number, number>
  /** Seals closed windows (seal.ts); null only in bare ledger tests, whose closed windows then carry no seal. */
  readonly sealHasher: SealHasher | null
  /** Signs seals with sealKey (seal.ts); null in bare ledger tests. */
  readonly sealSigner: SealSigner | null
  /** The workspace's key pair: from its creation, or given on upgrade by a seal.key command; null until then. */
  sealKey: SealKeyPair | null
}

/**
 * SHA-256 over the concatenation of the chunks, lowercase hex. node:crypto's, handed in by whoever makes
 * the state (src/exports/sha256.ts): the core imports nothing beyond itself (test/ledger/purity.test.ts),
 * and a hash is deterministic, so replay and restore seal alike.
 */
export type SealHasher = (chunks: Iterable<string>) => string

/** An Ed25519 key pair: the private key as base64 PKCS#8 DER, the public key as base64 of its raw 32 bytes. */
export interface SealKeyPair {
  readonly privateKey: string
  readonly publicKey: string
}

/**
 * An Ed25519 signature (base64) of the 32 bytes of a seal's SHA-256 (given as hex) by the private key:
 * node:crypto's, handed in like the hasher (src/exports/seal-signature.ts). Ed25519 is deterministic, so
 * replay and restore sign alike.
 */
export type SealSigner = (privateKey: string, sha256Hex: string) => string

export function createWorkspaceState(
  workspaceId: string, tag: string, sealHasher: SealHasher | null = null, sealSigner: SealSigner | null = null, sealKey: SealKeyPair | null = null,
): WorkspaceState {
  const treeArena = new DoublesArena()
  return {
    workspaceId,
    tag,
    accounts: [],
    accountsByName: new Map(),
    accountsByExternalId: new Map(),
    entries: [],
    entryStore: new EntryStore(tag),
    entryOrder: new SumTree({ allocator: treeArena }),
    treeArena,
    idempotency: new Map(),
    idempotencyOrder: [],
    idempotencyOrderHead: 0,
    windows: createWindowsState(),
    webhooks: createWebhooksState(),
    matchingRules: createMatchingRulesState(),
    approvals: createApprovalsState(),
    reversedBy: new Map(),
    reverses: new Map(),
    sealHasher,
    sealSigner,
    sealKey,
  }
}
