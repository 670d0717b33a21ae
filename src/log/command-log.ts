/** @module The durable command log on LMDB: append in order, group-commit, fsync, then release replies. */

import assert from 'node:assert/strict'
import { open, type Database, type RootDatabase } from 'lmdb'
import { decodeRecord, encodeRecord, type LogRecord } from './codec.js'

export interface CommandLogOptions {
  readonly path: string
  /** Records in one transaction at most; the rest wait for the next commit. */
  readonly groupCommitRecordsMax: number
  /** Appended but not yet durable records at most; past this, appends are refused (503). */
  readonly pendingRecordsMax: number
}

type DurableCallback = (error: Error | null) => void

/**
 * Group commit: records appended while a commit is in flight wait and go together in the next
 * transaction, so one fsync covers every request of a burst. A reply is released only by
 * afterDurable, that is after the transaction holding its record is committed and flushed.
 */
export class CommandLog {
  readonly #root: RootDatabase
  readonly #records: Database<Buffer, number>
  readonly #options: CommandLogOptions
  #nextSeq: number
  #durableSeq: number
  #pending: { seq: number; bytes: Buffer }[] = []
  #waiting: { seq: number; callback: DurableCallback }[] = []
  #inFlight = false
  #failure: Error | null = null
  #idleResolvers: (() => void)[] = []

  constructor(options: CommandLogOptions) {
    this.#options = options
    // Durability is explicit: commit waits for the transaction, and the reply waits for `flushed`.
    this.#root = open({ path: options.path, overlappingSync: true, noSync: false, noMetaSync: false, eventTurnBatching: true, commitDelay: 0, maxDbs: 8 })
    this.#records = this.#root.openDB<Buffer, number>({ name: 'log', keyEncoding: 'uint32', encoding: 'binary' })
    let last = 0
    for (const key of this.#records.getKeys({ reverse: true, limit: 1 })) last = key
    this.#nextSeq = last + 1
    this.#durableSeq = last
  }

  get root(): RootDatabase { return this.#root }
  get durableSeq(): number { return this.#durableSeq }
  get lastSeq(): number { return this.#nextSeq - 1 }
  get failure(): Error | null { return this.#failure }
  get pendingCount(): number { return this.#nextSeq - 1 - this.#durableSeq }

  /** Whether an append would be accepted now (not failed, not over the pending bound). */
  canAppend(): boolean {
    return this.#failure === null && this.pendingCount < this.#options.pendingRecordsMax
  }

  /** Queues a record for the next group commit and returns its sequence number. */
  append(record: LogRecord): number {
    assert.ok(this.canAppend())
    const seq = this.#nextSeq++
    this.#pending.push({ seq, bytes: encodeRecord(record) })
    if (!this.#inFlight) queueMicrotask(() => this.#commit())
    return seq
  }

  /** Calls back once every record up to seq is on disk (at once when it already is). */
  afterDurable(seq: number, callback: DurableCallback): void {
    if (this.#failure !== null) return callback(this.#failure)
    if (seq <= this.#durableSeq) return callback(null)
    this.#waiting.push({ seq, callback })
  }

  *readFrom(seq: number): Generator<{ seq: number; record: LogRecord }> {
    for (const { key, value } of this.#records.getRange({ start: seq })) yield { seq: key, record: decodeRecord(value) }
  }

  /** Resolves when nothing is pending (for shutdown). */
  idle(): Promise<void> {
    if (this.#pending.length === 0 && !this.#inFlight) return Promise.resolve()
    return new Promise((resolve) => this.#idleResolvers.push(resolve))
  }

  async close(): Promise<void> {
    await this.idle()
    // Snapshot writes bypass the group commit; wait for them to be on disk too.
    await this.#root.flushed
    await this.#root.close()
  }

  async #commit(): Promise<void> {
    if (this.#inFlight || this.#pending.length === 0 || this.#failure !== null) return
    this.#inFlight = true
    const batch = this.#pending.splice(0, this.#options.groupCommitRecordsMax)
    try {
      await this.#root.transaction(() => {
        for (const { seq, bytes } of batch) this.#records.put(seq, bytes)
      })
      await this.#root.flushed
      this.#durableSeq = batch[batch.length - 1].seq
      this.#release(null)
    } catch (error) {
      this.#failure = error instanceof Error ? error : new Error(String(error))
      this.#release(this.#failure)
    } finally {
      this.#inFlight = false
    }
    if (this.#pending.length > 0 && this.#failure === null) queueMicrotask(() => this.#commit())
    else for (const resolve of this.#idleResolvers.splice(0)) resolve()
  }

  #release(error: Error | null): void {
    let released = 0
    while (released < this.#waiting.length && (error !== null || this.#waiting[released].seq <= this.#durableSeq)) released++
    for (const { callback } of this.#waiting.splice(0, released)) callback(error)
  }
}
