/**
 * @module A standby's follow of one shard's log in PostgreSQL: LISTEN on the shard's channel wakes it, then it reads
 * `seq > applied` in pages and hands them over in order. A slow poll stands behind the notifications, which are lost
 * while the connection is down (and are only a wake-up: the log itself is what is read). Wake-ups are gathered: a
 * read starts a short while after the first of them, and covers every group commit announced meanwhile, so a busy
 * owner's standby makes one read and one local write per gathering, not one per group commit.
 */

import pg from 'pg'
import { connectTarget } from './pg-connect.ts'
import { channelOf, type LogRecord, type PgLog } from './pg-log.ts'

export interface PgTailOptions {
  readonly log: PgLog
  readonly shard: number
  /** The last seq already applied: records after it are handed over. */
  readonly appliedSeq: number
  /** Called with each page of new records, in seq order; the next page waits for it to resolve. */
  readonly onRecords: (records: readonly LogRecord[]) => void | Promise<void>
  /** Called once when following stops on an error (the connection lost, onRecords threw). */
  readonly onError: (error: Error) => void
  /** A read at least this often even without a notification (default 1 s). */
  readonly pollMs?: number
  /** Records per read (default 1,000). */
  readonly pageRecordsMax?: number
  /** How long after a wake-up the read starts, gathering the wake-ups meanwhile (default gatherMsDefault). */
  readonly gatherMs?: number
}

/**
 * A standby trails its owner by this much more at most: each of its reads (a query, an LMDB transaction and its fsync,
 * the records applied to memory) then covers the group commits of this long, where one per group commit cost each
 * standby about as much CPU per write as the owner's own commit. Nothing waits for a standby (the owner answers once
 * PostgreSQL committed) and a takeover reads the log to its end before serving, so the lag costs no answer anything.
 */
export const gatherMsDefault = 50

/** The listening connection's connect attempt per host gives up after this long. */
const listenConnectTimeoutMs = 5_000

/** Follows one shard until closed. */
export class PgTail {
  #applied: number
  #reading = false
  #again = false
  #closed = false
  #timer: NodeJS.Timeout | undefined
  /** The gathering under way: the read it will start. */
  #gathering: NodeJS.Timeout | undefined

  private constructor(private readonly options: PgTailOptions, private readonly listener: pg.Client) {
    this.#applied = options.appliedSeq
  }

  /** Resolves once LISTEN is in place and the first read is under way (gathering), so nothing appended after this is missed. */
  static async start(options: PgTailOptions): Promise<PgTail> {
    // LISTEN needs the primary (a standby delivers no notifications): found as the log's pool finds it.
    const { client: listener } = await connectTarget({ ...options.log.pool.target, readWrite: true }, listenConnectTimeoutMs)
    const tail = new PgTail(options, listener)
    listener.on('notification', (message) => { if (message.channel === channelOf(options.shard)) tail.wake() })
    listener.on('error', (error) => tail.#fail(error))
    await listener.query(`LISTEN ${channelOf(options.shard)}`)
    tail.#timer = setInterval(() => tail.wake(), options.pollMs ?? 1_000)
    tail.wake()
    return tail
  }

  /** The last seq handed over. */
  get appliedSeq(): number { return this.#applied }

  /** Reads what is new, gatherMs from now; a wake during a read makes one more read after it (gathered again). */
  wake(): void {
    if (this.#closed || this.#gathering !== undefined) return
    if (this.#reading) {
      this.#again = true
      return
    }
    this.#gathering = setTimeout(() => this.#read(), this.options.gatherMs ?? gatherMsDefault)
  }

  #read(): void {
    this.#gathering = undefined
    if (this.#closed) return
    this.#reading = true
    void this.#readAll().then(() => {
      this.#reading = false
      if (this.#again) {
        this.#again = false
        this.wake()
      }
    }, (error: Error) => this.#fail(error))
  }

  async #readAll(): Promise<void> {
    const pageRecordsMax = this.options.pageRecordsMax ?? 1_000
    for (;;) {
      if (this.#closed) return
      const records = await this.options.log.read(this.options.shard, this.#applied, pageRecordsMax)
      if (records.length === 0 || this.#closed) return
      await this.options.onRecords(records)
      this.#applied = records[records.length - 1].seq
      if (records.length < pageRecordsMax) return
    }
  }

  #fail(error: Error): void {
    if (this.#closed) return
    void this.close()
    this.options.onError(error)
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    clearInterval(this.#timer)
    clearTimeout(this.#gathering)
    await this.listener.end().catch(() => undefined)
  }
}
