/**
 * @module An owner's lease renewed from a worker thread of its own, with its own connection to the database, so that
 * a long turn of the event loop that runs the shard (a batch of 8,190 entries applied on a starved machine) does
 * not lose the shard while the node is healthy (docs/CLUSTER.md, "Lease").
 *
 * Safety is unchanged: fencing is the epoch checked in every append, and a renewal is the same statement as before
 * (`WHERE shard AND owner = this node AND epoch = this epoch`), so it never extends a lease another node holds.
 * Liveness: a wedged thread must not keep its shard for ever, so the renewer renews only while that thread shows
 * progress. The thread bumps a heartbeat (a counter in a SharedArrayBuffer) from a timer every heartbeatIntervalMs;
 * the renewer sends no renewal once the counter has not moved for mainThreadStallMsMax, and goes on as soon as it
 * moves again (a renewal then keeps the shard only if nobody took it meanwhile, as after any pause). The thread that
 * decides to step down sets a stop flag in the same buffer, which the renewer reads immediately before each renewal.
 *
 * One renewer per replica, started with it (so it has booted before the shard is acquired or taken over) and idle
 * until it is told the epoch it owns.
 */

import { parentPort, type Worker, workerData } from 'node:worker_threads'
import { PrimaryPool } from './pg-connect.js'
import { renewSql } from './pg-log.js'
import { siblingModuleUrl, startWorkerThread } from '../worker-thread.js'

/** The replica's thread bumps its heartbeat this often. */
export const heartbeatIntervalMs = 100
/**
 * Renewals stop once the replica's thread (the main thread with SHARDS=1, a shard's thread otherwise) has not bumped
 * its heartbeat for this long. A wedged owner's shard is then free by the database's clock at most this, one
 * heartbeat and the 3 s lease after it stopped, and a standby's next look (1 s) takes it: about 9.1 s, under the
 * 10 s failover goal; a bound of 8 s would make it 12 s. And 5 s is more than twice what an owner survived before
 * renewals left its event loop (2.2 s).
 */
export const mainThreadStallMsMax = 5_000
/** How long the renewer thread may take to start (load its modules) before the replica's open fails. */
export const renewerStartMsMax = 60_000
/** Its own connections: one renewal at a time, and a second only when one got no answer within a lease. */
const renewerPoolSize = 2

/** Int32 slots of the shared buffer. */
const beatSlot = 0
const stopSlot = 1

interface RenewerData {
  readonly url: string
  readonly node: string
  readonly shard: number
  readonly leaseMs: number
  readonly renewIntervalMs: number
  readonly stallMsMax: number
  readonly shared: SharedArrayBuffer
}

type ToRenewer = { readonly kind: 'renew'; readonly epoch: number }

type FromRenewer =
  | { readonly kind: 'ready' }
  /** A renewal found the placement row no longer this node's at this epoch: the renewer has stopped. */
  | { readonly kind: 'lost'; readonly epoch: number }
  /** The heartbeat did not move for quietMs: renewals stopped. */
  | { readonly kind: 'stalled'; readonly quietMs: number }
  /** The heartbeat moves again after renewals stopped for stoppedMs: renewing again. */
  | { readonly kind: 'resumed'; readonly stoppedMs: number }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'unanswered'; readonly waitedMs: number }

export interface LeaseRenewerOptions {
  readonly url: string
  readonly node: string
  readonly shard: number
  readonly leaseMs: number
  readonly renewIntervalMs: number
  /** mainThreadStallMsMax unless given (tests). */
  readonly stallMsMax?: number
  readonly warn: (line: string) => void
  /** The shard is lost for this epoch (a renewal found another owner or epoch), or the renewer thread died: step down. */
  readonly onLost: (reason: string) => void
}

/** The replica's handle on its renewer thread: the heartbeat it bumps, the epoch it hands over, the stop. */
export class LeaseRenewer {
  readonly #slots: Int32Array
  readonly #beat: NodeJS.Timeout
  #stopped = false
  /** Why the thread ended when nobody stopped it (or null): a later renew() steps down at once. */
  #dead: string | null = null

  private constructor(private readonly worker: Worker, shared: SharedArrayBuffer, private readonly options: LeaseRenewerOptions) {
    this.#slots = new Int32Array(shared)
    this.#beat = setInterval(() => Atomics.add(this.#slots, beatSlot, 1), heartbeatIntervalMs)
    this.#beat.unref()
    worker.on('message', (message: FromRenewer) => this.#heard(message))
    worker.on('error', (error) => this.#died(`its lease renewer thread failed: ${error.message}`))
    worker.on('exit', (code) => this.#died(`its lease renewer thread exited (code ${code})`))
    worker.unref()
  }

  /** Starts the thread; resolves once it has loaded and listens (bounded by renewerStartMsMax). */
  static async start(options: LeaseRenewerOptions): Promise<LeaseRenewer> {
    const shared = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT)
    const worker = startWorkerThread(siblingModuleUrl(import.meta.url, './lease-renewer'), { afterLoad: 'renewInThisThread', workerData: {
      url: options.url, node: options.node, shard: options.shard, leaseMs: options.leaseMs, renewIntervalMs: options.renewIntervalMs,
      stallMsMax: options.stallMsMax ?? mainThreadStallMsMax, shared,
    } satisfies RenewerData })
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the lease renewer thread did not start within ${renewerStartMsMax} ms`)), renewerStartMsMax)
        const settle = (error: Error | null) => {
          clearTimeout(timer)
          worker.off('message', onMessage)
          worker.off('error', settle)
          worker.off('exit', onExit)
          if (error === null) resolve()
          else reject(error)
        }
        const onMessage = (message: FromRenewer) => { if (message.kind === 'ready') settle(null) }
        const onExit = (code: number) => settle(new Error(`the lease renewer thread exited at start (code ${code})`))
        worker.on('message', onMessage).on('error', settle).on('exit', onExit)
      })
    } catch (error) {
      await worker.terminate()
      throw error
    }
    return new LeaseRenewer(worker, shared, options)
  }

  /** From now on the renewer renews the shard's lease at this epoch (once: a replica owns its shard at one epoch). */
  renew(epoch: number): void {
    if (this.#stopped) return
    if (this.#dead !== null) return this.options.onLost(this.#dead)
    this.worker.postMessage({ kind: 'renew', epoch } satisfies ToRenewer)
  }

  /**
   * No renewal is sent after this returns (the flag is read just before each is sent; one already sent may still be
   * answered). Called when the replica steps down, and at close.
   */
  async stop(): Promise<void> {
    if (this.#stopped) return
    this.#stopped = true
    Atomics.store(this.#slots, stopSlot, 1)
    clearInterval(this.#beat)
    await this.worker.terminate()
  }

  #heard(message: FromRenewer): void {
    if (this.#stopped) return
    const shard = this.options.shard
    switch (message.kind) {
      case 'ready': return
      case 'lost': return this.options.onLost(`another node took it over (lease of epoch ${message.epoch} lost)`)
      case 'stalled': return this.options.warn(`trueup: cluster: the thread serving shard ${shard} showed no progress for ${Math.round(message.quietMs)} ms (more than ${this.options.stallMsMax ?? mainThreadStallMsMax} ms): its lease is not renewed until it does`)
      case 'resumed': return this.options.warn(`trueup: cluster: the thread serving shard ${shard} runs again: renewing its lease again after ${Math.round(message.stoppedMs)} ms without (kept if no other node took the shard meanwhile)`)
      case 'failed': return this.options.warn(`trueup: cluster: renewing the lease of shard ${shard} failed: ${message.message}`)
      case 'unanswered': return this.options.warn(`trueup: cluster: a renewal of the lease of shard ${shard} sent ${Math.round(message.waitedMs)} ms ago has no answer; sending another`)
    }
  }

  #died(reason: string): void {
    if (this.#stopped || this.#dead !== null) return
    this.#dead = reason
    clearInterval(this.#beat)
    this.options.onLost(reason)
  }
}

/** The renewer thread's loop: idle until it owns an epoch, then a renewal every renewIntervalMs while the heartbeat moves. */
class RenewLoop {
  #epoch: number | null = null
  #beat = 0
  #beatSeenMs = 0
  /** When renewals stopped for want of a heartbeat, or null while they go on. */
  #stalledAtMs: number | null = null
  #sentMs = Number.NEGATIVE_INFINITY
  /** The renewal in flight (when it was sent): counted only once the database answered it. */
  #pending: { readonly sentMs: number } | null = null
  #timer: NodeJS.Timeout | null = null

  constructor(private readonly data: RenewerData, private readonly slots: Int32Array, private readonly pool: PrimaryPool, private readonly post: (message: FromRenewer) => void) {}

  own(epoch: number): void {
    if (this.#epoch !== null) return
    this.#epoch = epoch
    this.#beat = Atomics.load(this.slots, beatSlot)
    this.#beatSeenMs = performance.now()
    this.#timer = setInterval(() => this.#tick(), heartbeatIntervalMs)
    this.#tick()
  }

  #stopping(): boolean {
    if (Atomics.load(this.slots, stopSlot) === 0) return false
    this.#end()
    return true
  }

  #end(): void {
    if (this.#timer !== null) clearInterval(this.#timer)
    this.#timer = null
    void this.pool.end().catch(() => undefined)
  }

  #tick(): void {
    if (this.#timer === null || this.#stopping()) return
    const nowMs = performance.now()
    const beat = Atomics.load(this.slots, beatSlot)
    if (beat !== this.#beat) {
      this.#beat = beat
      this.#beatSeenMs = nowMs
    }
    const quietMs = nowMs - this.#beatSeenMs
    if (quietMs > this.data.stallMsMax) {
      if (this.#stalledAtMs === null) {
        this.#stalledAtMs = nowMs
        this.post({ kind: 'stalled', quietMs })
      }
      return
    }
    if (this.#stalledAtMs !== null) {
      this.post({ kind: 'resumed', stoppedMs: nowMs - this.#stalledAtMs })
      this.#stalledAtMs = null
    }
    if (nowMs - this.#sentMs < this.data.renewIntervalMs) return
    const pending = this.#pending
    if (pending !== null) {
      // One without an answer after a whole lease (a connection that never answers) no longer holds the next back.
      if (nowMs - pending.sentMs < this.data.leaseMs) return
      this.post({ kind: 'unanswered', waitedMs: nowMs - pending.sentMs })
    }
    void this.#renew(nowMs, this.#epoch!)
  }

  async #renew(sentMs: number, epoch: number): Promise<void> {
    const renewal = { sentMs }
    this.#sentMs = sentMs
    this.#pending = renewal
    try {
      // Read just before the statement is sent: never a renewal after the replica's thread decided to step down.
      if (this.#stopping()) return
      const result = await this.pool.query(renewSql, [this.data.shard, this.data.node, epoch, this.data.leaseMs])
      if (result.rowCount === 1 || this.#timer === null) return
      this.post({ kind: 'lost', epoch })
      this.#end()
    } catch (error) {
      // The database unreachable for a moment: the next renewal tries again (the pool finds the primary again); if
      // the lease lapses meanwhile and another node takes the shard, the next renewal or append is fenced.
      this.post({ kind: 'failed', message: error instanceof Error ? error.message : String(error) })
    } finally {
      if (this.#pending === renewal) this.#pending = null
    }
  }
}

/** The renewer thread's entry (started by LeaseRenewer.start). */
export function renewInThisThread(): void {
  const data = workerData as RenewerData
  const port = parentPort
  if (port === null) throw new Error('renewInThisThread runs on the lease renewer thread only')
  const pool = new PrimaryPool(data.url, { size: renewerPoolSize, writer: true })
  const loop = new RenewLoop(data, new Int32Array(data.shared), pool, (message) => port.postMessage(message))
  port.on('message', (message: ToRenewer) => loop.own(message.epoch))
  port.postMessage({ kind: 'ready' } satisfies FromRenewer)
}
