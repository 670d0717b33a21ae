/** @module The durable command log on LMDB: append in order, group-commit, fsync, then release replies; checked on read. */

import assert from 'node:assert/strict'
import { open, type Database, type RootDatabase } from 'lmdb'
import { encodeRecord, seqMaxOf, type LogRecord } from './codec.js'
import { StoreDamaged, storeUnopenable } from './damage.js'
import { RecordStore } from './record-store.js'
import { SeqWaiters, type DurableCallback } from './seq-waiters.js'
import { checkStoreFile } from './store-file.js'

/**
 * The commit step's seams, for tests of a failing disk: each hook may throw, and the throw is
 * handled exactly as LMDB's own error would be. `transaction` runs before the records are handed
 * to LMDB (nothing of the batch reaches the file: a full disk, a read-only mount); `flush` runs
 * after the transaction and before the fsync is awaited (the batch may be in the file but is not
 * known durable: an fsync error).
 */
export interface CommitFaults {
  transaction?(firstSeq: number, lastSeq: number): void
  flush?(firstSeq: number, lastSeq: number): void
}

export interface CommandLogOptions {
  readonly path: string
  /** Records in one transaction at most; the rest wait for the next commit. */
  readonly groupCommitRecordsMax: number
  /** Appended but not yet durable records at most; past this, appends are refused (503). */
  readonly pendingRecordsMax: number
  /** After each group commit is on disk: its record count and how long transaction plus fsync took (metrics). */
  readonly onCommit?: (records: number, durationMs: number) => void
  /** Test seams of the commit step; absent in production. */
  readonly faults?: CommitFaults
}

/**
 * Databases beside the log that a record may write to in its own transaction: the webhook outbox
 * (what must be delivered) and the delivery bookkeeping (src/webhooks/outbox.ts owns their format).
 */
export type SideDatabase = 'outbox' | 'deliveries'
export const sideDatabases: readonly SideDatabase[] = ['outbox', 'deliveries']

export interface SidePut {
  readonly db: SideDatabase
  readonly key: string
  readonly value: Buffer
}

/** What a record writes beside itself, and the names to tell `onSideDurable` about once it is durable. */
export interface SideWrites {
  readonly puts: readonly SidePut[]
  readonly notify: readonly string[]
}

interface PendingRecord {
  readonly seq: number
  readonly bytes: Buffer
  readonly side: SideWrites | null
}

/** How long a failed commit waits for LMDB to say why (its commitError promise), at most. */
const commitErrorWaitMs = 1_000

/**
 * Group commit: records appended while a commit is in flight wait and go together in the next
 * transaction, so one fsync covers every request of a burst. A reply is released only by
 * afterDurable, that is after the transaction holding its record is committed and flushed.
 * A failed commit fails the log for good: memory already holds the failed batch, so only a
 * restart, which rebuilds memory from the log, can bring memory and log back in step.
 */
export class CommandLog {
  readonly #root: RootDatabase
  readonly #records: RecordStore
  readonly #side: Readonly<Record<SideDatabase, Database<Buffer, string>>>
  readonly #options: CommandLogOptions
  #nextSeq: number
  #durableSeq: number
  #pending: PendingRecord[] = []
  /**
   * Replies waiting for durability, by the seq they wait for (always in durableSeq+1..lastSeq). A reply
   * is released as soon as its own seq is durable, whatever was registered before it: a read of one
   * workspace whose barrier is durable does not wait behind a write of another with a later seq.
   */
  /** Replies waiting per seq: one callback as is (a single write's seq has one), an array only once a second one waits. */
  readonly #waiting: SeqWaiters
  #inFlight = false
  #failure: Error | null = null
  /** Cluster mode, a standby (src/cluster/shard-replica.ts): another node owns the shard; appends refused until a takeover. */
  #standby: Error | null = null
  #idleResolvers: (() => void)[] = []
  /** Called after each commit whose records wrote side puts, with their `notify` names (the webhook deliverer). */
  onSideDurable: ((names: readonly string[]) => void) | null = null
  /**
   * Cluster mode (src/cluster/shard-replica.ts): each group commit's records, as stored, also committed elsewhere
   * (PostgreSQL). Run beside the LMDB transaction; the batch's replies wait for both. A rejection fails the log as
   * a failed transaction does, with the replica's error as is (the shard-level answer depends on it).
   */
  replicate: ((firstSeq: number, records: readonly Buffer[]) => Promise<void>) | null = null

  constructor(options: CommandLogOptions) {
    this.#options = options
    // Waiting seqs span the batch being released plus what was appended since: the pending bound and one group commit.
    this.#waiting = new SeqWaiters(options.pendingRecordsMax + options.groupCommitRecordsMax)
    checkStoreFile(options.path)
    try {
      // Durability is explicit: commit waits for the transaction, and the reply waits for `flushed`.
      this.#root = open({ path: options.path, overlappingSync: true, noSync: false, noMetaSync: false, eventTurnBatching: true, commitDelay: 0, maxDbs: 8 })
      this.#side = {
        outbox: this.#root.openDB<Buffer, string>({ name: 'outbox', encoding: 'binary' }),
        deliveries: this.#root.openDB<Buffer, string>({ name: 'deliveries', encoding: 'binary' }),
      }
      this.#records = new RecordStore(this.#root, options.path)
      this.#records.markFormat()
    } catch (error) {
      if (error instanceof StoreDamaged) throw error
      throw storeUnopenable(options.path, error instanceof Error ? error.message : String(error))
    }
    const last = this.#records.lastSeqAtOpen
    this.#nextSeq = last + 1
    this.#durableSeq = last
  }

  get path(): string { return this.#options.path }
  get root(): RootDatabase { return this.#root }
  get durableSeq(): number { return this.#durableSeq }
  get lastSeq(): number { return this.#nextSeq - 1 }
  get failure(): Error | null { return this.#failure }
  get pendingCount(): number { return this.#nextSeq - 1 - this.#durableSeq }

  /** Whether an append would be accepted now (not failed, not over the pending bound). */
  canAppend(): boolean {
    return this.#failure === null && this.#standby === null && this.pendingCount < this.#options.pendingRecordsMax
  }

  /** A database beside the log (read directly; written by `append` side puts or by its owner's own transactions). */
  sideDb(name: SideDatabase): Database<Buffer, string> {
    return this.#side[name]
  }

  /**
   * Queues a record for the next group commit and returns its sequence number. `side`, given the seq,
   * names puts into side databases that commit in the same transaction as the record: both or neither.
   */
  append(record: LogRecord, side?: (seq: number) => SideWrites): number {
    assert.ok(this.canAppend())
    assert.ok(this.#nextSeq <= seqMaxOf(8), 'the log has used every seq')
    const seq = this.#nextSeq++
    this.#pending.push({ seq, bytes: encodeRecord(seq, record), side: side === undefined ? null : side(seq) })
    if (!this.#inFlight) queueMicrotask(() => this.#commit())
    return seq
  }

  /** Calls back once every record up to seq is on disk (at once when it already is). */
  afterDurable(seq: number, callback: DurableCallback): void {
    if (this.#failure !== null) return callback(this.#failure)
    // A standby's memory is another node's past: nothing is answered from it.
    if (this.#standby !== null) return callback(this.#standby)
    if (seq <= this.#durableSeq) return callback(null)
    // The waiters' ring holds seqs up to the pending bound past the durable one (a seq not yet appended may wait).
    assert.ok(seq <= this.#durableSeq + this.#options.pendingRecordsMax, `afterDurable(${seq}) past the pending bound`)
    this.#waiting.add(seq, callback)
  }

  /** A new, empty log made to continue after seq: its next record is seq + 1 (src/shard/convert.ts). */
  beginAfter(seq: number): void {
    assert.ok(this.lastSeq === 0 && this.#pending.length === 0, 'only an empty log begins after a seq')
    this.#records.beginAt(seq + 1)
    this.#nextSeq = seq + 1
    this.#durableSeq = seq
  }

  /** The first seq the log holds; records below it were deleted by retention (src/actor/log-retention.ts). */
  get firstSeq(): number { return this.#records.firstSeq }

  /**
   * Every record from seq on, in order, each checked: a damaged record or a missing seq throws
   * StoreDamaged naming the seq. Start-up must never build state from a record it cannot trust.
   */
  readFrom(seq: number): Generator<{ seq: number; record: LogRecord }> {
    return this.#records.readFrom(seq, this.lastSeq)
  }

  /** The stored sizes of records seq..toSeq, countMax at most, in order: for retention by bytes (LOG_RETENTION_BYTES). */
  recordSizes(seq: number, toSeq: number, countMax: number): Generator<{ seq: number; bytes: number }> {
    return this.#records.sizesFrom(seq, toSeq, countMax)
  }

  /**
   * Deletes durable records below belowSeq, recordsMax at most, in one write transaction of its own
   * (the group commit's transactions queue behind it for that long). Returns how many.
   */
  removeBelow(belowSeq: number, recordsMax: number): Promise<number> {
    assert.ok(belowSeq <= this.#durableSeq + 1, 'only durable records are deleted')
    return this.#records.removeBelow(belowSeq, recordsMax)
  }

  /** Resolves when nothing is pending (for shutdown). */
  idle(): Promise<void> {
    if ((this.#pending.length === 0 && !this.#inFlight) || this.#failure !== null) return Promise.resolve()
    return new Promise((resolve) => this.#idleResolvers.push(resolve))
  }

  async close(): Promise<void> {
    await this.idle()
    // Snapshot writes bypass the group commit; wait for them to be on disk too. After a failed
    // commit LMDB may reject `flushed` as well: that failure is known and already answered.
    try {
      await this.#root.flushed
    } catch (error) {
      if (this.#failure === null) throw error
    } finally {
      await this.#root.close()
    }
  }

  /**
   * Hands the pending records (groupCommitRecordsMax at most) to LMDB as one transaction, unless a commit is
   * in flight or the log failed. Nothing waits for a timer or for a batch to fill: a lone write is committed
   * at once and answered after its own fsync.
   */
  #commit(): void {
    if (this.#inFlight || this.#pending.length === 0 || this.#failure !== null) return
    this.#inFlight = true
    void this.#write(this.#pending.splice(0, this.#options.groupCommitRecordsMax))
  }

  async #write(batch: readonly PendingRecord[]): Promise<void> {
    const firstSeq = batch[0].seq
    const lastSeq = batch[batch.length - 1].seq
    const startedMs = performance.now()
    // Started first, so the database's round trip overlaps LMDB's fsync; it never rejects (an error is its value).
    const replicated = this.replicate === null ? null : this.replicate(firstSeq, batch.map(({ bytes }) => bytes)).then(() => null, (error: unknown) => toError(error))
    try {
      this.#options.faults?.transaction?.(firstSeq, lastSeq)
      // batch() writes the puts into LMDB's instruction buffer now and its write thread commits them as one
      // transaction without calling back into JavaScript (transaction() would wait for a turn of the event loop).
      await this.#root.batch(() => {
        for (const { seq, bytes, side } of batch) {
          this.#records.put(seq, bytes)
          if (side !== null) for (const put of side.puts) this.#side[put.db].put(put.key, put.value)
        }
      })
      this.#options.faults?.flush?.(firstSeq, lastSeq)
      await this.#root.flushed
    } catch (error) {
      // Refuse appends at once; the reason LMDB gives comes a moment later.
      this.#failure = toError(error)
      await replicated
      return this.#failed(firstSeq, await describeFailure(error, firstSeq, lastSeq))
    }
    const replicaError = replicated === null ? null : await replicated
    // The batch is in the local file but not committed by the replica: its replies fail (the records were never
    // answered; docs/CLUSTER.md says what becomes of them).
    if (replicaError !== null) return this.#failed(firstSeq, replicaError)
    this.#durableSeq = lastSeq
    this.#inFlight = false
    this.#options.onCommit?.(batch.length, performance.now() - startedMs)
    // The next batch goes to the disk before this one's replies go out: under load, sending hundreds of
    // replies takes a while, and the disk would sit idle meanwhile. Commits stay one after the other.
    this.#commit()
    this.#release(firstSeq, lastSeq, null)
    this.#notifySide(batch)
    // A reply's callback may have appended: that record's commit is queued, so the log is not idle yet.
    if (!this.#inFlight && this.#pending.length === 0) for (const resolve of this.#idleResolvers.splice(0)) resolve()
  }

  /** The log failed for good: appends refused, the waiting replies (from firstSeq on) released with the error. */
  #failed(firstSeq: number, error: Error): void {
    this.#failure = error
    this.#pending = []
    this.#inFlight = false
    this.#release(firstSeq, this.lastSeq, error)
    for (const resolve of this.#idleResolvers.splice(0)) resolve()
  }

  /**
   * Fails the log from outside, as a failed commit would (cluster mode: the shard was taken by another node):
   * appends refused, every reply waiting released with the error. A commit in flight finishes, its replies
   * already failed.
   */
  stepDown(error: Error): void {
    if (this.#failure !== null) return
    this.#failure = error
    this.#pending = []
    this.#release(this.#durableSeq + 1, this.lastSeq, error)
    if (!this.#inFlight) for (const resolve of this.#idleResolvers.splice(0)) resolve()
  }

  /**
   * Cluster mode: another node owns the shard, so this log takes no appends of its own (they are refused, as at the
   * pending bound) and follows the database's log instead (appendFollowed). Reversible, unlike stepDown.
   */
  standBy(reason: Error): void {
    assert.ok(this.#pending.length === 0 && !this.#inFlight, 'only a log with nothing pending stands by')
    this.#standby = reason
  }

  /** The shard taken over: this log appends again, after the records it followed. */
  resume(): void {
    this.#standby = null
  }

  /** Record seq as stored (a copy), or null when the log does not hold it. */
  recordBytes(seq: number): Buffer | null {
    for (const { seq: found, bytes } of this.#records.rawFrom(seq)) return found === seq ? bytes : null
    return null
  }

  /** Why a standby refuses appends, or null. */
  get standby(): Error | null { return this.#standby }

  /**
   * A standby's records committed by the shard's owner (read from the database's log), as stored there: written at
   * their own seqs (the next ones of this log) in one transaction, then flushed. Resolves once durable.
   */
  async appendFollowed(firstSeq: number, records: readonly Buffer[]): Promise<void> {
    assert.ok(this.#standby !== null && this.#failure === null, 'only a standby follows another log')
    assert.ok(firstSeq === this.#nextSeq, `followed records start at ${firstSeq}, the log is at ${this.lastSeq}`)
    if (records.length === 0) return
    await this.#root.batch(() => {
      records.forEach((bytes, index) => this.#records.put(firstSeq + index, bytes))
    })
    await this.#root.flushed
    this.#nextSeq = firstSeq + records.length
    this.#durableSeq = this.#nextSeq - 1
  }

  /**
   * Cluster mode, at start, before replay (src/cluster/shard-replica.ts): removes records seq+1..lastSeq, which were
   * never answered (the tail of a fenced life, refused by the database), together with whatever `alsoRemove` removes
   * (snapshots and webhook outbox items past seq), in one transaction, then flushes: the log ends at seq, both or
   * neither on a crash. Returns how many records it removed.
   */
  async dropAfter(seq: number, alsoRemove: () => void): Promise<number> {
    assert.ok(this.#standby !== null && this.#failure === null && this.#pending.length === 0 && !this.#inFlight, 'only a log standing by, before it appends, drops records')
    const lastSeq = this.lastSeq
    assert.ok(Number.isSafeInteger(seq) && seq >= this.firstSeq - 1 && seq <= lastSeq, `records past ${seq} cannot be dropped from a log holding ${this.firstSeq}..${lastSeq}`)
    await this.#root.transaction(() => {
      for (let dropped = seq + 1; dropped <= lastSeq; dropped++) this.#records.remove(dropped)
      alsoRemove()
    })
    await this.#root.flushed
    this.#nextSeq = seq + 1
    this.#durableSeq = seq
    return lastSeq - seq
  }

  #notifySide(batch: readonly PendingRecord[]): void {
    if (this.onSideDurable === null) return
    const names = new Set<string>()
    for (const { side } of batch) if (side !== null) for (const name of side.notify) names.add(name)
    if (names.size > 0) this.onSideDurable([...names])
  }

  /**
   * Releases, in seq order (and in registration order within a seq), every reply whose seq is now durable,
   * or with an error every waiting reply: those of the failed batch and those after it. Every waiting seq
   * lies in fromSeq..toSeq (nothing below fromSeq was waiting), each looked up once.
   */
  #release(fromSeq: number, toSeq: number, error: Error | null): void {
    for (let seq = fromSeq; seq <= toSeq && this.#waiting.size > 0; seq++) {
      const callbacks = this.#waiting.take(seq)
      if (callbacks === undefined) continue
      if (typeof callbacks === 'function') callbacks(error)
      else for (const callback of callbacks) callback(error)
    }
  }
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error))
}

/**
 * LMDB rejects a failed commit with "Commit failed (see commitError for details)" and keeps the
 * cause (ENOSPC, EROFS, EIO) in a second promise; left alone, that promise is an unhandled
 * rejection that kills the process before anyone is told why. Wait for it briefly and name it.
 */
async function describeFailure(error: unknown, firstSeq: number, lastSeq: number): Promise<Error> {
  const base = error instanceof Error ? error : new Error(String(error))
  let cause: unknown = null
  const commitError = (base as { commitError?: unknown }).commitError
  if (commitError instanceof Promise) {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), commitErrorWaitMs) })
    cause = await Promise.race([commitError.then(() => null, (reason: unknown) => reason), timeout])
    clearTimeout(timer)
  }
  const detail = cause instanceof Error ? cause.message : base.message
  return new Error(`commit of log records ${firstSeq}..${lastSeq} failed: ${detail}`, { cause: cause ?? base })
}
