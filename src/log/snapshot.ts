/**
 * @module Workspace snapshots: the storage format of a workspace's primary facts at a log seq (a head and
 * entry chunks, framed and checksummed) and its LMDB reads and writes. The state is rebuilt from the
 * facts by the ledger (ledger/restore.ts), with the indexes the live path keeps.
 */

import assert from 'node:assert/strict'
import type { Database, RootDatabase } from 'lmdb'
import { Packr, Unpackr } from 'msgpackr'
import { factsOf, restoreWorkspace, type SystemFacts, type WorkspaceFacts } from '../ledger/restore.js'
import { Entry, EntryStore, type EntryLine, type SealHasher, type SealSigner, type WorkspaceState } from '../ledger/state.js'
import type { KeyRecord, SystemState, WorkspaceRecord } from '../ledger/system.js'
import { decodeValue, encodeValue, frame, unframe } from './codec.js'

/**
 * Version 2 stores a workspace as a head value (everything but the entries) and its entries in
 * columns, split over values of `entriesPerChunkDefault` entries each. Version 1, one value holding every
 * entry as an object, is still read.
 */
export const snapshotVersion = 2
/** The system snapshot kept its format (version 1). */
const systemSnapshotVersion = 1

/**
 * Entries per chunk value. At 1M entries a version 1 snapshot was one 150 MB value: packed in one
 * piece (~7 s of msgpackr, buffer doublings included), copied again to frame it, and decoded back
 * into a million objects at load. A chunk of 64 Ki entries is ~3 MB of typed arrays.
 */
export const entriesPerChunkDefault = 65_536

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

/**
 * What both versions hold besides the entries: the facts of ledger/restore.ts (one declaration, so a new fact
 * cannot be restored without being stored), under the version and the log seq they stand at.
 */
interface SnapshotFacts extends Omit<WorkspaceFacts, 'entries'> {
  readonly v: number
  readonly seq: number
}

/** Version 1: one value, the entries as objects. */
interface SnapshotBodyV1 extends SnapshotFacts {
  readonly entries: readonly StoredEntryV1[]
}

/** An entry as a version 1 snapshot holds it: a plain object, with its id and lines written out. */
interface StoredEntryV1 {
  readonly id: string
  readonly seq: number
  readonly lines: readonly EntryLine[]
  readonly effectiveAtMs: number
  readonly postedAtMs: number
  readonly description: string | null
  readonly metadata: Readonly<Record<string, string>> | null
}

/** Version 2, the head value: the entries are in chunk values, this says how many and how they were cut. */
interface SnapshotHead extends SnapshotFacts {
  readonly entries: { readonly count: number; readonly perChunk: number; readonly chunks: number }
}

/**
 * The entry columns of a chunk: `Column` is the stored bytes (little-endian) or a DataView of them.
 * Float64 × count: effectiveAtMs, postedAtMs; Uint32 × count: lineCounts (lines per entry); Uint32 and
 * Float64 × Σ lineCounts, entry after entry: lineAccounts, lineAmounts.
 */
interface EntryColumns<Column> {
  readonly effectiveAtMs: Column
  readonly postedAtMs: Column
  readonly lineCounts: Column
  readonly lineAccounts: Column
  readonly lineAmounts: Column
  readonly descriptions: (string | null)[]
  readonly metadata: (Readonly<Record<string, string>> | null)[]
}

/**
 * Entries first..first+count-1 in columns. Ids are not stored: an entry's id is made from the workspace
 * tag and its seq (ids.ts), and is made again on load.
 */
interface EntriesChunk extends EntryColumns<Uint8Array> {
  readonly v: number
  readonly seq: number
  readonly workspaceId: string
  readonly index: number
  readonly first: number
  readonly count: number
}

// A field added to Entry or EntryLine must be added to the chunk columns too: this stops the typecheck until it is.
// (Entry's store and at say where its timestamps and lines are; its id is made from the tag and seq.)
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type EntryFields = { [K in keyof Entry]: Entry[K] extends (...args: never[]) => unknown ? never : K }[keyof Entry]
const entryFieldsStored: Exactly<EntryFields, 'id' | 'seq' | 'store' | 'at' | 'lines' | 'lineCount' | 'effectiveAtMs' | 'postedAtMs' | 'description' | 'metadata'> = true
const lineFieldsStored: Exactly<keyof EntryLine, 'accountSeq' | 'amount'> = true
assert.ok(entryFieldsStored && lineFieldsStored)

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1

/**
 * Snapshot values are single messages, decoded as a whole: msgpackr records (each object shape written
 * once per value, then referred to) pack and unpack the many objects of one shape (statement lines,
 * history events, matches) several times faster than maps. Version 1 values are plain maps; msgpackr
 * reads both.
 */
const snapshotPackr = new Packr({ useRecords: true, mapsAsObjects: true })
/** Binary values (the columns) come back as views of the value read: it is a copy LMDB made for us. */
const snapshotUnpackr = new Unpackr({ mapsAsObjects: true })

function snapshotsDb(root: RootDatabase): Database<Buffer, string> {
  return root.openDB<Buffer, string>({ name: 'snapshots', encoding: 'binary' })
}

/** The key bytes a snapshot's checksum covers: its LMDB key string in UTF-8. */
function keyBytes(key: string): Buffer {
  return Buffer.from(key, 'utf8')
}

/** Workspace ids cannot contain a space (schemas/ledger.ts), so these keys never name a workspace. */
function chunkKeyPrefix(workspaceId: string): string {
  return `${workspaceId} entries `
}

function chunkKey(workspaceId: string, index: number): string {
  return `${chunkKeyPrefix(workspaceId)}${index}`
}

/** The decoded body of a stored snapshot value, or why there is none: never throws on damaged bytes. */
function readSnapshot(key: string, stored: Uint8Array, decode: (bytes: Uint8Array) => unknown): { ok: true; body: unknown } | { ok: false; reason: string } {
  const unframed = unframe(keyBytes(key), stored)
  if (!unframed.ok) return unframed
  try {
    return { ok: true, body: decode(unframed.payload) }
  } catch (error) {
    return { ok: false, reason: `the checksum matches but the payload does not decode (${messageOf(error)})` }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** The settling of a write as whether it committed; a failure is reported, never thrown. */
function reported(name: string, failed: SnapshotWriteFailed): [(written: boolean) => boolean, (error: unknown) => boolean] {
  return [
    (written) => {
      if (!written) failed(name, new Error('LMDB did not write it'))
      return written
    },
    (error) => {
      failed(name, error instanceof Error ? error : new Error(String(error)))
      return false
    },
  ]
}

/** The head value: the facts in the key order every version 2 snapshot was written in, and how the entries were cut. */
function headOf(seq: number, facts: WorkspaceFacts, perChunk: number, chunks: number): SnapshotHead {
  return {
    v: snapshotVersion,
    seq,
    workspaceId: facts.workspaceId,
    tag: facts.tag,
    accounts: facts.accounts,
    idempotency: facts.idempotency,
    windows: facts.windows,
    matches: facts.matches,
    webhooks: { lastSeq: facts.webhooks?.lastSeq ?? 0, subscriptions: facts.webhooks?.subscriptions ?? [] },
    entries: { count: facts.entries.length, perChunk, chunks },
    sealKey: facts.sealKey ?? null,
    // Only when there are any: the head of a workspace without reversals is written as before.
    ...(facts.reversals === undefined ? {} : { reversals: facts.reversals }),
    // Only when the workspace ever had a rule: the head of one without is written as before.
    ...(facts.matchingRules === undefined ? {} : { matchingRules: facts.matchingRules }),
    // Only when there are any: the head of a workspace without approvals is written as before.
    ...(facts.approvals === undefined ? {} : { approvals: facts.approvals }),
  }
}

/** The column's bytes, little-endian whatever the machine (a snapshot may be read on another). */
function bytesOf(values: Float64Array | Uint32Array): Uint8Array {
  const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength)
  if (!littleEndian) for (let at = 0; at < bytes.length; at += values.BYTES_PER_ELEMENT) bytes.subarray(at, at + values.BYTES_PER_ELEMENT).reverse()
  return bytes
}

function chunkOf(seq: number, facts: WorkspaceFacts, perChunk: number, index: number): EntriesChunk {
  const first = index * perChunk
  const count = Math.min(perChunk, facts.entries.length - first)
  const effectiveAtMs = new Float64Array(count)
  const postedAtMs = new Float64Array(count)
  const lineCounts = new Uint32Array(count)
  const descriptions: (string | null)[] = new Array<string | null>(count)
  const metadata: (Readonly<Record<string, string>> | null)[] = new Array<Readonly<Record<string, string>> | null>(count)
  let linesCount = 0
  for (let i = 0; i < count; i++) linesCount += facts.entries[first + i].lineCount
  const lineAccounts = new Uint32Array(linesCount)
  const lineAmounts = new Float64Array(linesCount)
  let line = 0
  for (let i = 0; i < count; i++) {
    const entry = facts.entries[first + i]
    effectiveAtMs[i] = entry.effectiveAtMs
    postedAtMs[i] = entry.postedAtMs
    lineCounts[i] = entry.lineCount
    descriptions[i] = entry.description
    metadata[i] = entry.metadata
    for (let k = 0; k < entry.lineCount; k++, line++) {
      lineAccounts[line] = entry.lineAccountSeq(k)
      lineAmounts[line] = entry.lineAmount(k)
    }
  }
  return {
    v: snapshotVersion, seq, workspaceId: facts.workspaceId, index, first: first + 1, count,
    effectiveAtMs: bytesOf(effectiveAtMs), postedAtMs: bytesOf(postedAtMs), lineCounts: bytesOf(lineCounts),
    lineAccounts: bytesOf(lineAccounts), lineAmounts: bytesOf(lineAmounts), descriptions, metadata,
  }
}

/**
 * What a snapshot is taken of: a workspace's state, or an object holding one (as the actor does; the log
 * imports no actor, and callers written against the earlier signature keep working).
 */
export type SnapshotSource = WorkspaceState | { readonly state: WorkspaceState }

/**
 * Encodes the snapshot now (the state moves on) and queues its values in one LMDB transaction, which
 * commits after every log record it covers (they are durable already): the head, every chunk, and the
 * removal of chunks an earlier, longer snapshot left. seq is the durable seq the state stands for: the
 * caller knows it reflects every record of this workspace up to it. Resolves true once committed, false
 * when the write failed (reported through `failed`); never rejects. Tests cut small chunks.
 */
export function writeSnapshot(root: RootDatabase, source: SnapshotSource, seq: number, failed: SnapshotWriteFailed, perChunk = entriesPerChunkDefault): Promise<boolean> {
  assert.ok(Number.isSafeInteger(seq) && seq >= 1)
  assert.ok(Number.isSafeInteger(perChunk) && perChunk >= 1)
  const facts = factsOf('state' in source ? source.state : source)
  const workspaceId = facts.workspaceId
  const chunks = Math.ceil(facts.entries.length / perChunk)
  const values: [string, Buffer][] = []
  for (let index = 0; index < chunks; index++) {
    const key = chunkKey(workspaceId, index)
    values.push([key, frame(keyBytes(key), snapshotPackr.pack(chunkOf(seq, facts, perChunk, index)))])
  }
  values.push([workspaceId, frame(keyBytes(workspaceId), snapshotPackr.pack(headOf(seq, facts, perChunk, chunks)))])
  const db = snapshotsDb(root)
  const prefix = chunkKeyPrefix(workspaceId)
  // Resolves once committed (or failed, and reported): the runtime records the seq only then.
  return root.transaction(() => {
    for (const key of db.getKeys({ start: prefix, end: `${prefix}\uffff` })) {
      const index = Number(String(key).slice(prefix.length))
      if (!(Number.isInteger(index) && index < chunks)) db.remove(key)
    }
    for (const [key, bytes] of values) db.put(key, bytes)
    return true
  }).then(...reported(`workspace ${workspaceId}`, failed))
}

/**
 * One chunk, checked against the head that names it, its columns as views of the value read (LMDB's
 * copy, ours to keep): nothing is copied again, and nothing needs the 8-byte alignment a Float64Array
 * view would.
 */
function readChunk(db: Database<Buffer, string>, head: SnapshotHead, index: number): ChunkColumns {
  const key = chunkKey(head.workspaceId, index)
  const stored = db.get(key)
  if (stored === undefined) throw new Error(`entries chunk ${index} is missing`)
  const read = readSnapshot(key, stored, (bytes) => snapshotUnpackr.unpack(bytes))
  if (!read.ok) throw new Error(`entries chunk ${index}: ${read.reason}`)
  const chunk = read.body as EntriesChunk
  const first = index * head.entries.perChunk + 1
  const count = Math.min(head.entries.perChunk, head.entries.count - first + 1)
  assert.ok(chunk !== null && typeof chunk === 'object', `entries chunk ${index} is not a map`)
  assert.equal(chunk.v, snapshotVersion, `entries chunk ${index} has another version`)
  assert.equal(chunk.seq, head.seq, `entries chunk ${index} is of another snapshot`)
  assert.equal(chunk.workspaceId, head.workspaceId, `entries chunk ${index} names another workspace`)
  assert.equal(chunk.index, index)
  assert.equal(chunk.first, first)
  assert.equal(chunk.count, count)
  const columns: ChunkColumns = {
    first, count,
    effectiveAtMs: viewOf(chunk.effectiveAtMs, count * 8), postedAtMs: viewOf(chunk.postedAtMs, count * 8), lineCounts: viewOf(chunk.lineCounts, count * 4),
    lineAccounts: viewOf(chunk.lineAccounts, null), lineAmounts: viewOf(chunk.lineAmounts, null), linesCount: chunk.lineAccounts.byteLength / 4,
    descriptions: chunk.descriptions, metadata: chunk.metadata,
  }
  assert.ok(Number.isInteger(columns.linesCount) && chunk.lineAmounts.byteLength === columns.linesCount * 8, `entries chunk ${index}: the line columns do not match`)
  assert.ok(Array.isArray(chunk.descriptions) && chunk.descriptions.length === count, `entries chunk ${index}: descriptions`)
  assert.ok(Array.isArray(chunk.metadata) && chunk.metadata.length === count, `entries chunk ${index}: metadata`)
  return columns
}

/** A chunk as read: its columns as views of the value LMDB returned, checked against the head. */
interface ChunkColumns extends EntryColumns<DataView> {
  readonly first: number
  readonly count: number
  readonly linesCount: number
}

/** A view of a column's bytes, checked to be bytes of the expected length (null: any). */
function viewOf(bytes: Uint8Array, byteLength: number | null): DataView {
  assert.ok(bytes instanceof Uint8Array, 'a column is not bytes')
  if (byteLength !== null) assert.equal(bytes.byteLength, byteLength, 'a column has the wrong length')
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** The entries of a version 2 snapshot, from its chunks, in seq order. */
function readEntries(db: Database<Buffer, string>, head: SnapshotHead): Entry[] {
  const { count, perChunk, chunks } = head.entries
  assert.ok(Number.isSafeInteger(count) && count >= 0 && Number.isSafeInteger(perChunk) && perChunk >= 1, 'the head does not say how many entries')
  assert.equal(chunks, Math.ceil(count / perChunk), 'the head names the wrong number of chunks')
  const accountsCount = head.accounts.length
  const entries: Entry[] = new Array<Entry>(count)
  // Sized for two lines an entry (it grows when they have more): the store the restored workspace takes over.
  const store = new EntryStore(head.tag, 7 * count)
  for (let index = 0; index < chunks; index++) {
    const chunk = readChunk(db, head, index)
    const { effectiveAtMs, postedAtMs, lineCounts, lineAccounts, lineAmounts } = chunk
    let line = 0
    for (let i = 0; i < chunk.count; i++) {
      const seq = chunk.first + i
      const linesCount = lineCounts.getUint32(4 * i, true)
      if (line + linesCount > chunk.linesCount) assert.fail(`entries chunk ${index}: the lines run out at entry ${seq}`)
      const at = store.begin(linesCount, effectiveAtMs.getFloat64(8 * i, true), postedAtMs.getFloat64(8 * i, true))
      for (let k = 0; k < linesCount; k++, line++) {
        const accountSeq = lineAccounts.getUint32(4 * line, true)
        if (accountSeq < 1 || accountSeq > accountsCount) assert.fail(`entry ${seq} names account ${accountSeq}, which the snapshot does not hold`)
        store.setLine(at, k, accountSeq, lineAmounts.getFloat64(8 * line, true))
      }
      entries[seq - 1] = new Entry(seq, store, at, chunk.descriptions[i], chunk.metadata[i])
    }
    assert.equal(line, chunk.linesCount, `entries chunk ${index} holds lines of no entry`)
  }
  return entries
}

/** The entries of a version 1 snapshot, checked as readEntries checks those of version 2: dense seqs, known accounts. */
function checkedEntriesV1(stored: readonly StoredEntryV1[], tag: string, accountsCount: number): Entry[] {
  const entries = new Array<Entry>(stored.length)
  const store = new EntryStore(tag, 7 * stored.length)
  for (let i = 0; i < stored.length; i++) {
    const { seq, lines, effectiveAtMs, postedAtMs, description, metadata } = stored[i]
    assert.equal(seq, i + 1)
    for (const line of lines) if (!(line.accountSeq >= 1 && line.accountSeq <= accountsCount)) assert.fail(`entry ${seq} names account ${line.accountSeq}, which the snapshot does not hold`)
    entries[i] = Entry.create(seq, effectiveAtMs, postedAtMs, lines, description, metadata, store)
  }
  return entries
}

/** The state of a snapshot of either version; its entries are read from their chunks for version 2. */
function fromBody(db: Database<Buffer, string>, body: SnapshotBodyV1 | SnapshotHead, sealHasher: SealHasher | null, sealSigner: SealSigner | null): WorkspaceState {
  assert.ok(body.v === 1 || body.v === snapshotVersion, `unknown snapshot version ${String(body.v)}`)
  const accountsCount = body.accounts.length
  // readEntries checks seqs and accounts as it builds the entries; a version 1 body holds them ready-made.
  const entries = body.v === 1 ? checkedEntriesV1((body as SnapshotBodyV1).entries, body.tag, accountsCount) : readEntries(db, body as SnapshotHead)
  const { workspaceId, tag, accounts, idempotency, windows, matches, webhooks, sealKey, reversals, matchingRules, approvals } = body
  return restoreWorkspace({ workspaceId, tag, accounts, entries, idempotency, windows, matches, webhooks, sealKey, reversals, matchingRules, approvals }, sealHasher, sealSigner)
}

export interface LoadedSnapshots {
  readonly workspaces: Map<string, LoadedSnapshot>
  readonly unusable: UnusableSnapshot[]
}

/**
 * Every workspace snapshot that passes its checksums and rebuilds cleanly. A damaged one (its head or
 * any of its chunks) is left out and named in `unusable`; its workspace is rebuilt from the log, which
 * is never truncated.
 */
/** sealHasher, sealSigner: what the restored states seal and sign closed windows with (the service's; null in tests of the format alone). */
export function loadSnapshots(root: RootDatabase, sealHasher: SealHasher | null = null, sealSigner: SealSigner | null = null): LoadedSnapshots {
  const workspaces = new Map<string, LoadedSnapshot>()
  const unusable: UnusableSnapshot[] = []
  const db = snapshotsDb(root)
  for (const key of db.getKeys({})) {
    // The system snapshot and the entry chunks have a space in their keys; they are read elsewhere.
    if (typeof key !== 'string' || key.includes(' ')) continue
    const value = db.get(key)
    if (value === undefined) continue
    const read = readSnapshot(key, value, (bytes) => snapshotUnpackr.unpack(bytes))
    if (!read.ok) {
      unusable.push({ name: `workspace ${key}`, reason: read.reason })
      continue
    }
    try {
      const body = read.body as SnapshotBodyV1 | SnapshotHead
      assert.equal(body.workspaceId, key, 'the snapshot names another workspace')
      assert.ok(Number.isSafeInteger(body.seq) && body.seq >= 1, 'the snapshot has no seq')
      workspaces.set(key, { seq: body.seq, state: fromBody(db, body, sealHasher, sealSigner) })
    } catch (error) {
      // The checksums held, so these bytes are what was written: a bug, not the disk. Replay is still right.
      unusable.push({ name: `workspace ${key}`, reason: `the checksum matches but the body does not rebuild (${messageOf(error)})` })
    }
  }
  return { workspaces, unusable }
}

/** The key under which the system snapshot is stored; workspace ids cannot contain a space. */
const systemKey = ' system'

/** The system's facts (ledger/restore.ts restoreSystem rebuilds the state), with a version and a seq. */
interface SystemSnapshotBody extends SystemFacts {
  readonly v: number
  readonly seq: number
  readonly workspaces: WorkspaceRecord[]
  readonly keys: KeyRecord[]
}

export function writeSystemSnapshot(root: RootDatabase, seq: number, system: SystemState, failed: SnapshotWriteFailed): void {
  const body: SystemSnapshotBody = { v: systemSnapshotVersion, seq, workspaces: [...system.workspaces.values()], keys: [...system.keys.values()] }
  snapshotsDb(root).put(systemKey, frame(keyBytes(systemKey), encodeValue(body))).then(...reported('system', failed))
}

export type SystemSnapshotRead =
  | { readonly ok: true; readonly seq: number; readonly state: SystemSnapshotBody }
  | { readonly ok: false; readonly unusable: UnusableSnapshot }

/** The system snapshot, undefined when there is none, or why it cannot be used. */
export function loadSystemSnapshot(root: RootDatabase): SystemSnapshotRead | undefined {
  const bytes = snapshotsDb(root).get(systemKey)
  if (bytes === undefined) return undefined
  const read = readSnapshot(systemKey, bytes, decodeValue)
  if (!read.ok) return { ok: false, unusable: { name: 'system', reason: read.reason } }
  const body = read.body as SystemSnapshotBody
  if (body === null || typeof body !== 'object' || body.v !== systemSnapshotVersion || !Number.isSafeInteger(body.seq) || !Array.isArray(body.workspaces) || !Array.isArray(body.keys)) {
    return { ok: false, unusable: { name: 'system', reason: 'the checksum matches but the body is not a system snapshot of this version' } }
  }
  return { ok: true, seq: body.seq, state: body }
}

/** The seqs of the snapshots on disk, for log retention: whatever they hold, recovery begins after the oldest. */
export interface SnapshotSeqs {
  /** The system snapshot's seq and the workspaces it holds; null when there is none or it cannot be read. */
  readonly system: { readonly seq: number; readonly workspaceIds: readonly string[] } | null
  /** Each workspace snapshot's seq, by workspace id (those whose head cannot be read are left out). */
  readonly workspaces: ReadonlyMap<string, number>
}

/**
 * Reads the heads only (not the entry chunks): what is committed is what a recovery would find. A head
 * that does not check out is left out, so retention keeps the records its workspace would need.
 */
export function snapshotSeqsOnDisk(root: RootDatabase): SnapshotSeqs {
  const workspaces = new Map<string, number>()
  const db = snapshotsDb(root)
  for (const key of db.getKeys({})) {
    if (typeof key !== 'string' || key.includes(' ')) continue
    const value = db.get(key)
    const read = value === undefined ? null : readSnapshot(key, value, (bytes) => snapshotUnpackr.unpack(bytes))
    const seq = read !== null && read.ok ? (read.body as { seq?: unknown } | null)?.seq : undefined
    if (typeof seq === 'number' && Number.isSafeInteger(seq)) workspaces.set(key, seq)
  }
  const system = loadSystemSnapshot(root)
  return { system: system !== undefined && system.ok ? { seq: system.seq, workspaceIds: system.state.workspaces.map(({ id }) => id) } : null, workspaces }
}

/**
 * Within a write transaction: removes every snapshot of a state past seq (a workspace's head with its entry chunks,
 * the system's), for a log cut back to seq (a cluster node dropping records it never answered: a snapshot past seq
 * may hold them). Returns what it removed, named with its seq.
 */
export function removeSnapshotsAfter(root: RootDatabase, seq: number): string[] {
  const db = snapshotsDb(root)
  const seqs = snapshotSeqsOnDisk(root)
  const removed: string[] = []
  for (const [workspaceId, at] of seqs.workspaces) {
    if (at <= seq) continue
    const prefix = chunkKeyPrefix(workspaceId)
    const chunks = [...db.getKeys({ start: prefix })].filter((key): key is string => typeof key === 'string' && key.startsWith(prefix))
    for (const key of [workspaceId, ...chunks]) db.remove(key)
    removed.push(`workspace ${workspaceId} at seq ${at}`)
  }
  if (seqs.system !== null && seqs.system.seq > seq) {
    db.remove(systemKey)
    removed.push(`the system at seq ${seqs.system.seq}`)
  }
  return removed
}
